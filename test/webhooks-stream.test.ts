/**
 * Webhooks on AWS start from the change itself, not from a one-minute schedule (docs/changes-events-webhooks.md: a
 * healthy receiver within 5 s): the table's real stream in DynamoDB Local, read as Lambda's mappings
 * read it and filtered by their own patterns, wakes the placer (inserted pending markers), whose
 * placement in the feed wakes the webhooks' worker (inserted feed items), which delivers to a real
 * receiver on 127.0.0.1. No schedule runs here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Context, DynamoDBRecord } from 'aws-lambda';
import { handler as placer } from '../functions/changes/place.js';
import { handler as webhookWorker } from '../functions/webhooks/run.js';
import { PENDING_INSERTS, PLACED_INSERTS } from '../lib/changes/placer.js';
import { createDynamoDbClient, tableName } from '../lib/db/client.js';
import { passes } from '../lib/db/stream-filter.js';
import { enableStream } from '../lib/local/setup.js';
import { post, put } from './support/api.js';
import { createProduct } from './support/fixtures.js';
import { useReceiver } from './support/receiver.js';
import { TableStream } from './support/table-stream.js';

process.env.STORE_WEBHOOKS_ALLOW_LOOPBACK = '1';

const receiver = useReceiver();
const stream = new TableStream();

/** The context of an invocation of a function with a minute's timeout. */
const invocation = () => {
  const deadline = Date.now() + 60_000;
  return { getRemainingTimeInMillis: () => deadline - Date.now() } as Context;
};

beforeAll(async () => {
  await enableStream(createDynamoDbClient(), tableName());
  await stream.read(); // what the table's setup wrote
});

describe("webhooks woken by the table's stream", () => {
  it('deliver a write within seconds: the write wakes the placer, whose placement wakes the worker', async () => {
    const hook = await post('/api/webhooks', { url: `${receiver.base}/woken`, events: ['product.updated'] });
    expect(hook.status).toBe(201);
    const product = (await createProduct()).row;
    await stream.read(); // the subscription's and the product's own records

    const written = Date.now();
    expect((await put(`/api/products/${product.ID}`, { price: '12' })).status).toBe(204);

    // The placer's mapping: the marker of the pending change.
    const pending: DynamoDBRecord[] = (await stream.read()).filter((record) => passes(PENDING_INSERTS, record));
    expect(pending.length).toBeGreaterThan(0);
    await placer({ Records: pending }, invocation());

    // The worker's mapping: the feed item the placer inserted.
    const placed: DynamoDBRecord[] = (await stream.read()).filter((record) => passes(PLACED_INSERTS, record));
    expect(placed).toHaveLength(1);
    await webhookWorker({ Records: placed }, invocation());

    expect(receiver.at('/woken')).toHaveLength(1);
    expect(JSON.parse(receiver.at('/woken')[0]!.body)).toMatchObject({ ENTITY_ID: product.ID, TYPE: 'updated' });
    // Locally the stream is read at once; on AWS each mapping adds its polling, about a second.
    expect(Date.now() - written).toBeLessThan(5_000);
  });

  it('does not wake the worker for anything else the table writes', async () => {
    await createProduct();
    const records = await stream.read();
    expect(records.length).toBeGreaterThan(0);
    expect(records.filter((record) => passes(PLACED_INSERTS, record))).toEqual([]);
  });
});
