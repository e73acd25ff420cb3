/**
 * A write that commits late, for real: the fault proxy holds its transaction back past its request's
 * budget (the request answers 503), then lets it through. The change feed still shows its change
 * once, to a client that had already read everything before it, and never twice.
 */
import { inject, afterAll, describe, expect, it } from 'vitest';
import { startFaultProxy } from './support/fault-proxy.js';

const proxy = await startFaultProxy(inject('dynamoEndpoint'));
process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
process.env.STORE_REQUEST_BUDGET_MS = '2000';

const { get, put } = await import('./support/api.js');
const { cursorNow, followChanges } = await import('./support/changes.js');
const { createProduct } = await import('./support/fixtures.js');

const TRANSACT_WRITE = 'DynamoDB_20120810.TransactWriteItems';

afterAll(async () => {
  proxy.pass();
  await proxy.close();
});

describe('a change whose write commits after its request gave up', () => {
  it('comes once, after the cursor of a client that had read everything before it', async () => {
    const start = await cursorNow('&resource=product');
    const product = (await createProduct({ price: '1' })).row;
    const before = await followChanges(start, '&resource=product');
    expect(before.changes.map((c) => [c.ENTITY_ID, c.TYPE])).toEqual([[product.ID, 'created']]);

    proxy.stallOn(TRANSACT_WRITE);
    const late = await put(`/api/products/${product.ID}`, { price: '2' });
    expect(late.status).toBe(503);
    proxy.pass(); // the held-back transaction reaches DynamoDB now
    await expect.poll(async () => (await get(`/api/products/${product.ID}`)).body[0]?.PRICE, { timeout: 30_000 }).toBe('2.000000');

    const after = await followChanges(before.cursor, '&resource=product');
    expect(after.changes.map((c) => [c.ENTITY_ID, c.TYPE, c.VERSION])).toEqual([[product.ID, 'updated', 2]]);
    expect(after.changes[0]!.CHANGES).toEqual([{ field: 'PRICE', locale: null, before: '1.000000', after: '2.000000' }]);
    expect((await followChanges(after.cursor, '&resource=product')).changes).toEqual([]);
    // From the start, each change once.
    const whole = await followChanges(start, '&resource=product');
    expect(whole.changes.map((c) => c.VERSION)).toEqual([1, 2]);
  });
});
