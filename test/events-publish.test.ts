/**
 * The push of changes to EventBridge (CONTRACT §12), as deployed: the table's real stream in
 * DynamoDB Local, read as Lambda's mapping reads it and filtered by the mapping's own pattern,
 * handed to the publish function, which puts events to a PutEvents stand-in on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDBRecord } from 'aws-lambda';
import { handler } from '../functions/events/publish.js';
import { createDynamoDbClient, tableName } from '../lib/db/client.js';
import { lambdaContext } from '../lib/local/dispatch.js';
import { enableStream } from '../lib/local/setup.js';
import { isChangeInsert } from '../lib/events/stream-filter.js';
import { del, logLines, put } from './support/api.js';
import { followChanges, cursorNow, type ChangeRow } from './support/changes.js';
import { startEventBridgeStandIn, type EventBridgeStandIn } from './support/eventbridge-stand-in.js';
import { createCustomer, createProduct } from './support/fixtures.js';
import { TableStream } from './support/table-stream.js';

let eventBridge: EventBridgeStandIn;
const stream = new TableStream();

beforeAll(async () => {
  // As deployed (lib/db/table.ts); local tables have none unless asked, as nothing else reads it.
  await enableStream(createDynamoDbClient(), tableName());
  eventBridge = await startEventBridgeStandIn();
  process.env.EVENTBRIDGE_ENDPOINT = eventBridge.endpoint;
  process.env.STORE_EVENT_BUS_NAME = 'store-api-test';
  await stream.read(); // what the table's setup wrote
});
afterAll(() => eventBridge.close());

/** Runs the publish function on what the stream holds since the last call, as the mapping hands it over. */
async function publishFromStream(): Promise<{ records: DynamoDBRecord[]; failures: string[] }> {
  const all = await stream.read();
  const records = all.filter(isChangeInsert);
  const response = await handler({ Records: records }, lambdaContext('events/publish'));
  return { records, failures: response.batchItemFailures.map((failure) => failure.itemIdentifier) };
}

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

    const { records, failures } = await publishFromStream();
    expect(failures).toEqual([]);
    const { changes } = await followChanges(start);
    expect(records).toHaveLength(changes.length);
    const events = eventBridge.taken.map((entry) => ({ source: entry.Source, type: entry.DetailType, bus: entry.EventBusName, detail: JSON.parse(entry.Detail) as ChangeRow }));
    expect(events.map((e) => e.type).sort()).toEqual(['customer.created', 'customer.deleted', 'product.created', 'product.updated']);
    for (const event of events) {
      expect(event).toMatchObject({ source: 'store-api', bus: 'store-api-test' });
      expect(event.detail).toEqual(withoutLoop(changes.find((change) => change.ID === event.detail.ID)!));
    }
    const line = JSON.parse(logLines.findLast((text) => text.includes('"message":"events"'))!) as Record<string, unknown>;
    expect(line).toMatchObject({ records: 4, published: 4, refusals: 0, failed: 0, _aws: { CloudWatchMetrics: [{ Namespace: 'StoreApi/Events' }] } });
  });

  it('puts again an event EventBridge refuses, and reports a record it keeps refusing as a batch item failure, the others published', async () => {
    await stream.read();
    eventBridge.taken.length = 0;
    const twice = (await createProduct({ title: 'Refused twice' })).row;
    const always = (await createProduct({ title: 'Always refused' })).row;
    eventBridge.refuse((entry) => entry.Detail.includes('Refused twice'), 2);
    eventBridge.refuse((entry) => entry.Detail.includes('Always refused'), Infinity, 'InternalFailure');

    const { records, failures } = await publishFromStream();
    const sequenceOf = (id: number) => records.find((record) => record.dynamodb?.Keys?.pk?.S === `CHANGE#product#${id}`)!.dynamodb!.SequenceNumber;
    expect(failures).toEqual([sequenceOf(always.ID as number)]);
    expect(eventBridge.taken.map((entry) => (JSON.parse(entry.Detail) as ChangeRow).ENTITY_ID)).toEqual([twice.ID]);
    const line = JSON.parse(logLines.findLast((text) => text.includes('"message":"events"'))!) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'warn', records: 2, published: 1, refusals: 2, failed: 1 });
  });
});
