/**
 * The releases' pre-traffic hook (docs/deploying.md), against stand-ins of CodeDeploy and Lambda on
 * 127.0.0.1 that speak their protocols: CodeDeploy gives the deployment's AppSpec and takes the
 * hook's verdict; Lambda gives the version's configuration and runs the route's real handler
 * module, on this file's table, with the route's events/ sample as the hook signs it with the
 * stage's release-check key (made as a deploy makes it), or fails as a broken build does.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../lib/db/client.js';
import { checkDeployment, sampleFileOf, type HookRoute } from '../lib/deploy/pre-traffic.js';
import { ensureStageKeys } from '../lib/deploy/migrations-resource.js';
import { stageKeyOf } from '../lib/deploy/stage-keys.js';
import { handlerFile, routes } from '../lib/routes.js';

/** How the Lambda stand-in answers an invocation: the route's handler, or a failure of the build. */
let behaviour: 'handler' | 'crash' | 'server-error' = 'handler';
const verdicts: Array<{ deploymentId: string; status: string }> = [];
/** The deployment the CodeDeploy stand-in describes: which function and version. */
let target = { name: 'StoreApi-test-Routes-HealthGet', route: 'health/get', version: '7' };

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)));
}

const codedeploy = createServer((request, response) => {
  let raw = '';
  request.on('data', (chunk) => (raw += chunk));
  request.on('end', () => {
    const input = JSON.parse(raw) as Record<string, string>;
    const json = (body: unknown) => response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(body));
    if (request.headers['x-amz-target'] === 'CodeDeploy_20141006.GetDeployment') {
      const appSpec = {
        version: 0.0,
        Resources: [{ [target.route]: { Type: 'AWS::Lambda::Function', Properties: { Name: target.name, Alias: 'live', CurrentVersion: '6', TargetVersion: target.version } } }],
      };
      return json({ deploymentInfo: { deploymentId: input.deploymentId, revision: { revisionType: 'AppSpecContent', appSpecContent: { content: JSON.stringify(appSpec) } } } });
    }
    if (request.headers['x-amz-target'] === 'CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus') {
      verdicts.push({ deploymentId: input.deploymentId!, status: input.status! });
      return json({ lifecycleEventHookExecutionId: input.lifecycleEventHookExecutionId });
    }
    response.writeHead(400).end('{}');
  });
});

const lambda = createServer((request, response) => {
  let raw = '';
  request.on('data', (chunk) => (raw += chunk));
  request.on('end', async () => {
    const url = new URL(request.url!, 'http://lambda');
    const [, , , name, action] = url.pathname.split('/');
    if (name !== target.name || url.searchParams.get('Qualifier') !== target.version) return response.writeHead(404, { 'x-amzn-errortype': 'ResourceNotFoundException' }).end('{}');
    if (action === 'configuration')
      return response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ FunctionName: name, Version: target.version, Environment: { Variables: { STORE_ROUTE: target.route } } }));
    if (behaviour === 'crash')
      return response.writeHead(200, { 'x-amz-function-error': 'Unhandled' }).end(JSON.stringify({ errorType: 'Runtime.ImportModuleError', errorMessage: 'Cannot find module' }));
    if (behaviour === 'server-error') return response.writeHead(200).end(JSON.stringify({ statusCode: 500, headers: { 'Content-Type': 'application/problem+json' }, body: '{}' }));
    const route = routes.find((r) => r.name === target.route)!;
    const { handler } = (await import(/* @vite-ignore */ pathToFileURL(path.resolve(handlerFile(route))).href)) as { handler: (event: unknown, context: unknown) => Promise<unknown> };
    const answer = await handler(JSON.parse(raw), { awsRequestId: 'pre-traffic', getRemainingTimeInMillis: () => 10_000, functionName: name });
    response.writeHead(200).end(JSON.stringify(answer));
  });
});

/** The stage's release-check key, as its secret holds it. */
const RELEASE_CHECK_SECRET = '5EC0DE'.padEnd(25, '0') + 'C0FFEE'.padEnd(48, '1');

beforeAll(async () => {
  // As the migrations custom resource makes it on a deploy.
  await ensureStageKeys({ releaseCheck: 'the-stage-secret' }, async () => RELEASE_CHECK_SECRET);
  process.env.CODEDEPLOY_ENDPOINT = await listen(codedeploy);
  process.env.LAMBDA_ENDPOINT = await listen(lambda);
});
afterAll(() => Promise.all([codedeploy, lambda].map((server) => new Promise((resolve) => server.close(resolve)))));

/** What the hook knows of a route, its sample read from events/ as the deployed hook reads it beside its bundle. */
const routeNamed = async (name: string): Promise<HookRoute | undefined> => {
  const route = routes.find((r) => r.name === name);
  return route && { route: route.name, status: route.status, permission: route.permission, sample: JSON.parse(await readFile(`events/${sampleFileOf(route.name)}`, 'utf8')) };
};

const check = (deploymentId: string, secret = RELEASE_CHECK_SECRET) =>
  checkDeployment({ DeploymentId: deploymentId, LifecycleEventHookExecutionId: `hook-${deploymentId}` }, routeNamed, async () => stageKeyOf(secret));
const items = async () => (await db().send(new ScanCommand({ TableName: tableName(), Select: 'COUNT' }))).Count;

describe('the pre-traffic hook', () => {
  it("lets a version through when it answers its route's sample with the route's status", async () => {
    behaviour = 'handler';
    target = { name: 'StoreApi-test-Routes-HealthGet', route: 'health/get', version: '7' };
    expect(await check('d-healthy')).toEqual({ status: 'Succeeded' });
    expect(verdicts.at(-1)).toEqual({ deploymentId: 'd-healthy', status: 'Succeeded' });
  });

  it('signs the sample with the release-check key: a read it may do answers its success (a record of the sample absent from this table: its 404)', async () => {
    behaviour = 'handler';
    target = { name: 'StoreApi-test-Routes-TaxRulesList', route: 'tax-rules/list', version: '12' };
    expect(await check('d-read')).toEqual({ status: 'Succeeded' });
    target = { name: 'StoreApi-test-Routes-TaxRulesGet', route: 'tax-rules/get', version: '12' };
    expect(await check('d-read-one')).toEqual({ status: 'Succeeded' });
  });

  it('takes a write’s 403 for the access the key lacks, once the version has read and verified the key, and writes nothing in the table', async () => {
    behaviour = 'handler';
    const before = await items();
    for (const [route, version] of [
      ['products/create', '3'],
      ['customers/update', '4'],
      ['categories/delete', '5'],
    ] as const) {
      target = { name: `StoreApi-test-${route.replace('/', '-')}`, route, version };
      expect(await check(`d-write-${version}`)).toEqual({ status: 'Succeeded' });
    }
    expect(await items()).toBe(before);
  });

  it('fails a version that does not know the key (401), whatever its route', async () => {
    behaviour = 'handler';
    const unknown = 'E'.repeat(73);
    target = { name: 'StoreApi-test-Routes-TaxRulesList', route: 'tax-rules/list', version: '14' };
    expect(await check('d-unknown-read', unknown)).toEqual({ status: 'Failed', reason: 'tax-rules/list: the new version answered 401 to its sample, not 200' });
    target = { name: 'StoreApi-test-ProductsCreate', route: 'products/create', version: '15' };
    expect(await check('d-unknown-write', unknown)).toEqual({
      status: 'Failed',
      reason: 'products/create: the new version answered 401 to its sample, not the 403 of an access the release-check key lacks',
    });
  });

  it('fails the deployment, with the reason, for a build that cannot start or answers a 5xx, so that CodeDeploy rolls it back', async () => {
    target = { name: 'StoreApi-test-Routes-TaxRulesGet', route: 'tax-rules/get', version: '13' };
    behaviour = 'crash';
    expect(await check('d-crash')).toEqual({ status: 'Failed', reason: 'tax-rules/get: the new version failed (Unhandled)' });
    expect(verdicts.at(-1)).toEqual({ deploymentId: 'd-crash', status: 'Failed' });
    behaviour = 'server-error';
    expect(await check('d-500')).toEqual({ status: 'Failed', reason: 'tax-rules/get: the new version answered 500 to its sample, not 200' });
    expect(verdicts.at(-1)).toEqual({ deploymentId: 'd-500', status: 'Failed' });
  });
});
