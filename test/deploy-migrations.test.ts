/**
 * Migrations on deploy (CONTRACT §13): the custom resource's handler, invoked with CloudFormation's
 * Create, Update and Delete events against this file's table on DynamoDB Local, answers on the
 * event's ResponseURL (a real HTTP server here, as CloudFormation's pre-signed S3 URL): it runs the
 * pending steps once and records them, runs nothing the second time, and fails with the step's reason.
 */
import { createServer, type IncomingMessage } from 'node:http';
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../functions/deploy/migrate.js';
import { db, tableName } from '../lib/db/client.js';
import { handleMigrationsEvent, type CustomResourceEvent } from '../lib/deploy/migrations-resource.js';
import { MIGRATIONS } from '../lib/migrations/steps.js';

/** What CloudFormation received on its response URL, in order. */
const answers: Array<{ method: string; contentType: string | undefined; body: Record<string, any> }> = [];
const responder = createServer((request: IncomingMessage, response) => {
  let body = '';
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    answers.push({ method: request.method!, contentType: request.headers['content-type'], body: JSON.parse(body) as Record<string, any> });
    response.writeHead(200).end();
  });
});
let responseUrl = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => responder.listen(0, '127.0.0.1', resolve));
  responseUrl = `http://127.0.0.1:${(responder.address() as { port: number }).port}/cloudformation-response?X-Amz-Signature=presigned`;
});
afterAll(() => new Promise<void>((resolve) => responder.close(() => resolve())));

const event = (RequestType: CustomResourceEvent['RequestType']): CustomResourceEvent => ({
  RequestType,
  ResponseURL: responseUrl,
  StackId: 'arn:aws:cloudformation:us-east-1:000000000000:stack/StoreApi-test/1',
  RequestId: `request-${answers.length}`,
  LogicalResourceId: 'TableMigrations',
  ...(RequestType === 'Create' ? {} : { PhysicalResourceId: 'store-api-migrations' }),
  ResourceProperties: { Steps: MIGRATIONS.map((step) => step.id).join(',') },
});

const recorded = async () => ((await db().send(new GetCommand({ TableName: tableName(), Key: { pk: 'SETUP', sk: 'MIGRATIONS' } }))).Item?.ran as Set<string> | undefined) ?? new Set<string>();

describe('the migrations custom resource', () => {
  it('runs the pending steps on Create and records them, runs none on the Update that follows, and does nothing on Delete', async () => {
    // A table whose record of migrations is gone, as one from before migrations were recorded.
    await db().send(new DeleteCommand({ TableName: tableName(), Key: { pk: 'SETUP', sk: 'MIGRATIONS' } }));
    await handler(event('Create'));
    expect(answers.at(-1)).toMatchObject({
      method: 'PUT',
      contentType: '',
      body: { Status: 'SUCCESS', PhysicalResourceId: 'store-api-migrations', LogicalResourceId: 'TableMigrations', Data: { Ran: MIGRATIONS.map((step) => step.id).join(','), Conflicts: '0' } },
    });
    expect([...(await recorded())].sort()).toEqual(MIGRATIONS.map((step) => step.id));

    await handler(event('Update'));
    expect(answers.at(-1)!.body).toMatchObject({ Status: 'SUCCESS', Data: { Ran: '' } });
    await handler(event('Delete'));
    expect(answers.at(-1)!.body).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'store-api-migrations' });
    expect([...(await recorded())].sort()).toEqual(MIGRATIONS.map((step) => step.id));
  });

  it("fails the deploy with the failing step's reason, keeping the steps before it recorded and not recording it", async () => {
    const failing = { id: '999-fails-for-the-test', up: () => Promise.reject(new Error('a record could not be read')) };
    const later = { id: '1000-never-reached', up: () => Promise.resolve() };
    const outcome = await handleMigrationsEvent(event('Update'), [...MIGRATIONS, failing, later]);
    expect(outcome.Status).toBe('FAILED');
    expect(answers.at(-1)!.body).toMatchObject({ Status: 'FAILED', Reason: 'migration 999-fails-for-the-test failed: Error: a record could not be read' });
    const ran = await recorded();
    expect(ran.has('999-fails-for-the-test')).toBe(false);
    expect(ran.has('1000-never-reached')).toBe(false);
    expect(ran.has('005-sealed-secrets')).toBe(true);
  });
});
