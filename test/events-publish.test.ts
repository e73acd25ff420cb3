/**
 * The push of changes to EventBridge (docs/changes-events-webhooks.md), as deployed: the table's real stream in
 * DynamoDB Local, read as Lambda's mapping reads it and filtered by the mapping's own pattern,
 * handed to the publish function, which puts events to a PutEvents stand-in on 127.0.0.1 and the keys
 * of those it keeps refusing to an SQS stand-in, from which `npm run events -- redrive` puts them again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDBRecord } from 'aws-lambda';
import { execFile } from 'node:child_process';
import { handler } from '../functions/events/publish.js';
import { EventBridgeOutage, RETRY_WINDOW_MS } from '../lib/events/push.js';
import { createDynamoDbClient, tableName } from '../lib/db/client.js';
import { enableStream } from '../lib/local/setup.js';
import { isChangeInsert } from '../lib/events/stream-filter.js';
import { del, logLines, put } from './support/api.js';
import { followChanges, cursorNow, type ChangeRow } from './support/changes.js';
import { startEventBridgeStandIn, type EventBridgeStandIn } from './support/eventbridge-stand-in.js';
import { createCategory, createCustomer, createProduct } from './support/fixtures.js';
import { TableStream } from './support/table-stream.js';
import { productsWrittenDirectly } from './support/backlog.js';
import { startSqsStandIn, type SqsStandIn } from './support/sqs-stand-in.js';

let eventBridge: EventBridgeStandIn;
let sqs: SqsStandIn;
const stream = new TableStream();

beforeAll(async () => {
  // As deployed (lib/db/table.ts); local tables have none unless asked, as nothing else reads it.
  await enableStream(createDynamoDbClient(), tableName());
  eventBridge = await startEventBridgeStandIn();
  process.env.EVENTBRIDGE_ENDPOINT = eventBridge.endpoint;
  process.env.STORE_EVENT_BUS_NAME = 'store-api-test';
  sqs = await startSqsStandIn();
  process.env.SQS_ENDPOINT = new URL(sqs.queueUrl).origin;
  process.env.STORE_EVENTS_DEAD_LETTERS_URL = sqs.queueUrl;
  await stream.read(); // what the table's setup wrote
});
afterAll(() => Promise.all([eventBridge.close(), sqs.close()]));

/** Runs the publish function on what the stream holds since the last call, as the mapping hands it over. */
async function publishFromStream(): Promise<{ records: DynamoDBRecord[] }> {
  const records = (await stream.read()).filter(isChangeInsert);
  await handler({ Records: records });
  return { records };
}

/** A command's exit code and output. */
const run = (file: string, args: string[], options: { env: NodeJS.ProcessEnv; encoding: 'utf8' }) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(file, args, options, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr })),
  );

const deadLetters = () => sqs.bodies().map((body) => JSON.parse(body) as { key: { pk: string; sk: string }; changeId: string; code: string });

const withoutLoop = ({ LOOP_COUNT: _, LOOP_TOTAL: __, ...row }: ChangeRow & { LOOP_COUNT?: number; LOOP_TOTAL?: number }) => row;

describe('changes on the event bus', () => {
  it('puts each committed change as <resource>.<type>, its detail the change row, and nothing else of the table', async () => {
    const start = await cursorNow();
    await stream.read();
    eventBridge.taken.length = 0;
    const product = (await createProduct()).row;
    expect((await put(`/api/products/${product.ID}`, { price: '3' })).status).toBe(204);
    const customer = (await createCustomer()).row;
    expect((await del(`/api/customers/${customer.ID}`)).status).toBe(204);

    const { records } = await publishFromStream();
    const { changes } = await followChanges(start);
    expect(records).toHaveLength(changes.length);
    const events = eventBridge.taken.map((entry) => ({ source: entry.Source, type: entry.DetailType, bus: entry.EventBusName, detail: JSON.parse(entry.Detail) as ChangeRow }));
    // The product's default sale element is created and follows its new price (docs/api.md).
    expect(events.map((e) => e.type).sort()).toEqual(['customer.created', 'customer.deleted', 'product.created', 'product.updated', 'pse.created', 'pse.updated']);
    for (const event of events) {
      expect(event).toMatchObject({ source: 'store-api', bus: 'store-api-test' });
      expect(event.detail).toEqual(withoutLoop(changes.find((change) => change.ID === event.detail.ID)!));
    }
    const line = JSON.parse(logLines.findLast((text) => text.includes('"message":"events"'))!) as Record<string, unknown>;
    expect(line).toMatchObject({ records: 6, published: 6, refusals: 0, failed: 0, _aws: { CloudWatchMetrics: [{ Namespace: 'StoreApi/Events' }] } });
  });

  it('puts events ten to a call at most', async () => {
    await stream.read();
    eventBridge.calls.length = 0;
    eventBridge.taken.length = 0;
    await productsWrittenDirectly(25);
    const { records } = await publishFromStream();
    expect(records).toHaveLength(25);
    expect(eventBridge.taken).toHaveLength(25);
    expect(eventBridge.calls).toEqual([10, 10, 5]);
  });

  it('puts again an event EventBridge refuses, and keeps the key of one it keeps refusing in the dead-letter queue, the others put once', async () => {
    await stream.read();
    eventBridge.taken.length = 0;
    // Categories: one change a create (a product's makes its default sale element's too).
    const twice = await createCategory({ title: 'Refused twice' });
    const always = await createCategory({ title: 'Always refused' });
    eventBridge.refuse((entry) => entry.Detail.includes('Refused twice'), 2);
    eventBridge.refuse((entry) => entry.Detail.includes('Always refused'), Infinity, 'InternalFailure');

    await publishFromStream();
    expect(eventBridge.taken.map((entry) => (JSON.parse(entry.Detail) as ChangeRow).ENTITY_ID)).toEqual([twice.ID]);
    expect(deadLetters()).toEqual([{ key: { pk: `CHANGE#category#${always.ID}`, sk: expect.any(String) }, changeId: expect.any(String), code: 'InternalFailure' }]);
    const line = JSON.parse(logLines.findLast((text) => text.includes('"message":"events"'))!) as Record<string, unknown>;
    // Refusals retried: the first one's 2, the other's 4 (its fifth is the last attempt).
    expect(line).toMatchObject({ level: 'warn', records: 2, published: 1, refusals: 6, failed: 1 });

    // npm run events -- redrive: once EventBridge takes it, the event is put and the letter deleted.
    eventBridge.refusing.length = 0;
    // Not spawnSync: the stand-ins it talks to live in this process.
    const redrive = await run(process.execPath, ['--import', 'tsx', 'lib/cli/events.ts', 'redrive'], { env: process.env, encoding: 'utf8' });
    expect(redrive.code, redrive.stderr).toBe(0);
    expect(JSON.parse(redrive.stdout.trim().split('\n').at(-1)!)).toEqual({ redriven: 1, gone: 0, refused: 0 });
    expect(eventBridge.taken.map((entry) => (JSON.parse(entry.Detail) as ChangeRow).ENTITY_ID)).toEqual([twice.ID, always.ID]);
    expect(deadLetters()).toEqual([]);
  }, 180_000);

  it('puts again, from the table, the changes of a stream batch whose pointer the mapping sent to the queue', async () => {
    // The batch the publisher never handled: its records left the stream, its changes are in the table.
    await stream.read();
    const lost = [await createCategory({ title: 'Lost one' }), await createCategory({ title: 'Lost two' })];
    const records = (await stream.read()).filter(isChangeInsert);
    expect(records).toHaveLength(2);
    // When each arrived, in whole seconds as on AWS (DynamoDB Local's own stream rounds to the minute).
    const arrival = (row: { UPDATE_DATE: string }) => new Date(Math.floor(Date.parse(row.UPDATE_DATE) / 1000) * 1000).toISOString();
    // What Lambda sends an on-failure destination for a DynamoDB stream batch.
    sqs.deliver(
      JSON.stringify({
        requestContext: { requestId: 'a-request', functionArn: 'arn:aws:lambda:us-east-1:000000000000:function:publisher', condition: 'RecordAgeExceeded', approximateInvokeCount: 30 },
        responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
        version: '1.0',
        timestamp: new Date().toISOString(),
        DDBStreamBatchInfo: {
          shardId: 'shardId-00000001',
          startSequenceNumber: records[0]!.dynamodb!.SequenceNumber,
          endSequenceNumber: records[1]!.dynamodb!.SequenceNumber,
          approximateArrivalOfFirstRecord: arrival(lost[0]!),
          approximateArrivalOfLastRecord: arrival(lost[1]!),
          batchSize: 2,
          streamArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/store/stream/2026-11-25T00:00:00.000',
        },
      }),
    );
    eventBridge.taken.length = 0;
    const redrive = await run(process.execPath, ['--import', 'tsx', 'lib/cli/events.ts', 'redrive'], { env: process.env, encoding: 'utf8' });
    expect(redrive.code, redrive.stderr).toBe(0);
    const put = eventBridge.taken.map((entry) => (JSON.parse(entry.Detail) as ChangeRow).ENTITY_ID);
    for (const { ID } of lost) expect(put).toContain(ID);
    expect(deadLetters()).toEqual([]);
  }, 180_000);

  it('fails the invocation when EventBridge takes none of a batch (the Errors alarm), for the stream to retry, and keeps its keys once the retry window is over', async () => {
    await stream.read();
    eventBridge.taken.length = 0;
    await createCategory({ title: 'Outage' });
    eventBridge.refuse(() => true, Infinity, 'ServiceUnavailable');
    const records = (await stream.read()).filter(isChangeInsert);
    await expect(handler({ Records: records })).rejects.toBeInstanceOf(EventBridgeOutage);
    expect(deadLetters()).toEqual([]);

    const old = records.map((record) => ({ ...record, dynamodb: { ...record.dynamodb, ApproximateCreationDateTime: (Date.now() - RETRY_WINDOW_MS - 60_000) / 1000 } }));
    await handler({ Records: old });
    expect(deadLetters().map((letter) => letter.code)).toEqual(['ServiceUnavailable']);
    eventBridge.refusing.length = 0;
  });
});
