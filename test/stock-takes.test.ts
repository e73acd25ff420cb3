/**
 * Stock takes (lib/products/stock-takes.ts) as DynamoDB would meet them: this file's requests go
 * through a TCP proxy that can lose an answer (support/fault-proxy.ts), in front of the
 * conflict-faithful proxy (lib/local/conflict-proxy.ts: a transaction on an item another one is
 * writing is cancelled, a single write to it refused), in front of the run's DynamoDB Local. A take
 * is one UpdateItem that no concurrent taker loses; its change is recorded after it, in version
 * order, by its taker or by whoever writes the sale element next.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../lib/db/client.js';
import { addLogged, FENCE_KEPT_MS } from '../lib/db/logged-add.js';
import { startConflictProxy } from '../lib/local/conflict-proxy.js';
import { present } from '../lib/present.js';
import { routeByName, type RouteName } from '../lib/routes.js';
import { del, get, put, tableSnapshot, type ApiResponse } from './support/api.js';
import { actionsUsedBy } from './support/dynamodb-actions.js';
import { cursorNow, followChanges, type ChangeRow } from './support/changes.js';
import { createProduct } from './support/fixtures.js';
import { startFaultProxy } from './support/fault-proxy.js';

// Conflicts are retried within a request's budget: here the invocation's 30 s, as in conflicts.test.ts.
process.env.STORE_REQUEST_BUDGET_MS = '29000';
const conflicts = await startConflictProxy({ target: inject('dynamoEndpoint'), holdMs: 10 });
const faults = await startFaultProxy(conflicts.endpoint);
// Before the table is set up (test/support/table-per-file.ts): the API's client is made on first use.
process.env.DYNAMODB_ENDPOINT = faults.endpoint;
afterAll(async () => {
  await faults.close();
  await conflicts.close();
});

/** A product's default sale element, its stock set to `stock` (version 2). */
async function stocked(stock: number): Promise<number> {
  const { row: product } = await createProduct();
  const [element] = (await get(`/api/pse/product/${product.ID}`)).body;
  expect((await put(`/api/pse/${element.ID}`, { pse: [{ quantity: stock }] })).status).toBe(201);
  return element.ID;
}

const elementKey = (id: number) => ({ pk: `PSE#${id}`, sk: 'PSE' });

/** The sale element's item as stored: its stock's DynamoDB type and value, and its log of takes. */
async function stored(id: number): Promise<{ type: string; stock: number; takes: number }> {
  const { Item } = await db().send(new GetItemCommand({ TableName: tableName(), Key: { pk: { S: `PSE#${id}` }, sk: { S: 'PSE' } }, ConsistentRead: true }));
  const quantity = Item?.quantity ?? {};
  const [type = '', stock = ''] = Object.entries(quantity)[0] ?? [];
  return { type, stock: Number(stock), takes: Item?.takes?.L?.length ?? 0 };
}

/** A take applied by a taker that stopped before recording it (its process ended): in the log only. */
async function takeLeftInTheLog(id: number, amount: string, requestId: string): Promise<void> {
  const outcome = await addLogged(elementKey(id), {
    attribute: 'quantity',
    amount,
    floor: '0',
    log: 'takes',
    entry: () => ({ id: `take-${requestId}`, delta: amount, at: Date.now(), apiKey: 'stopped-taker', requestId }),
    maxEntries: 64,
    fence: 'takeFences',
    recorded: () => Promise.resolve(false),
  });
  expect(outcome.added).toBe(true);
}

/** The sale element's changes after `since`, as `version: before → after` of its stock (or the fields changed). */
async function historyOf(id: number, since: string): Promise<string[]> {
  const { changes } = await followChanges(since, '&resource=pse');
  const shown = (change: ChangeRow) =>
    change.TYPE === 'deleted' ? 'deleted' : change.CHANGES.map((field) => (field.field === 'QUANTITY' ? `${field.before} → ${field.after}` : field.field)).join(', ');
  return changes.filter((change) => change.ENTITY_ID === id).map((change) => `${change.VERSION}: ${shown(change)}`);
}

describe('a stock take', () => {
  it('loses no take among 40 at once from a stock of 20: exactly 20 applied, each recorded once, in version order', async () => {
    const id = await stocked(20);
    const since = await cursorNow('&resource=pse');
    const answers = await Promise.all(Array.from({ length: 40 }, () => put(`/api/pse/${id}`, { pse: [{ quantity_delta: -1 }] })));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses, answers.find((answer) => answer.status >= 500)?.text).toEqual([...Array(20).fill(201), ...Array(20).fill(409)]);
    const taken = answers.filter((answer) => answer.status === 201).map((answer) => answer.body[0]);
    // Each answer is its own take: its version and the stock it left.
    expect(taken.map((row) => `${row.VERSION}:${row.QUANTITY}`).sort()).toEqual(Array.from({ length: 20 }, (_, k) => `${k + 3}:${(19 - k).toFixed(6)}`).sort());
    expect((await get(`/api/pse/${id}`)).body[0]).toMatchObject({ QUANTITY: '0.000000', VERSION: 22 });
    expect(await historyOf(id, since)).toEqual(Array.from({ length: 20 }, (_, k) => `${k + 3}: ${(20 - k).toFixed(6)} → ${(19 - k).toFixed(6)}`));
    expect(await stored(id)).toEqual({ type: 'N', stock: 0, takes: 0 });
  });

  it('past zero is a 409 naming what is left that writes nothing, and with a stale If-Match a 412 that writes nothing', async () => {
    const id = await stocked(3);
    const before = await tableSnapshot();
    const oversold = await put(`/api/pse/${id}`, { pse: [{ quantity_delta: -4 }] });
    expect(oversold.status).toBe(409);
    expect(oversold.body.detail).toMatch(/has 3\.000000 in stock/);
    const stale = await put(`/api/pse/${id}`, { pse: [{ quantity_delta: -1 }] }, { headers: { 'if-match': '"1"' } });
    expect(stale.status).toBe(412);
    expect(await tableSnapshot()).toEqual(before);
    const current = await put(`/api/pse/${id}`, { pse: [{ quantity_delta: -1 }] }, { headers: { 'if-match': '"2"' } });
    expect(current.body[0]).toMatchObject({ QUANTITY: '2.000000', VERSION: 3 });
  });

  it('left in the log by a taker that stopped is recorded by the next take, before it', async () => {
    const id = await stocked(10);
    const since = await cursorNow('&resource=pse');
    await takeLeftInTheLog(id, '-2.000000', 'stopped-1');
    const next = await put(`/api/pse/${id}`, { pse: [{ quantity_delta: -1 }] });
    expect(next.body[0]).toMatchObject({ QUANTITY: '7.000000', VERSION: 4 });
    expect(await historyOf(id, since)).toEqual(['3: 10.000000 → 8.000000', '4: 8.000000 → 7.000000']);
    const { changes } = await followChanges(since, '&resource=pse');
    expect(changes.find((change) => change.ENTITY_ID === id && change.VERSION === 3)).toMatchObject({ API_KEY: 'stopped-taker', REQUEST_ID: 'stopped-1' });
    expect((await stored(id)).takes).toBe(0);
  });

  it('left in the log is recorded before any other write of the sale element (its PUT, its product’s update and delete), which then applies', async () => {
    const id = await stocked(10);
    const since = await cursorNow('&resource=pse');
    await takeLeftInTheLog(id, '-2.000000', 'stopped-2');
    // Each within the DynamoDB actions its route declares (its function's grants), recording the takes included.
    const withinGrants = async (route: RouteName, write: () => Promise<ApiResponse>): Promise<ApiResponse> => {
      let answer: ApiResponse | undefined;
      const used = await actionsUsedBy(async () => {
        answer = await write();
      });
      expect(routeByName(route).deployment.dynamodb, route).toEqual(expect.arrayContaining(used));
      return present(answer, 'the answer');
    };
    const priced = await withinGrants('pse/update', () => put(`/api/pse/${id}`, { pse: [{ price: 12 }] }));
    expect(priced.status, priced.text).toBe(201);
    expect(priced.body[0]).toMatchObject({ QUANTITY: '8.000000', VERSION: 4, PRICE: '12.000000' });
    expect(await historyOf(id, since)).toEqual(['3: 10.000000 → 8.000000', '4: PRICE']);

    // The product's update: its default follows its price.
    await takeLeftInTheLog(id, '5', 'stopped-3');
    const product = (await get(`/api/pse/${id}`)).body[0].PRODUCT_ID;
    expect((await withinGrants('products/update', () => put(`/api/products/${product}`, { price: 14 }))).status).toBe(204);
    // Its delete, which reads its sale elements from their index.
    await takeLeftInTheLog(id, '-1', 'stopped-4');
    expect((await withinGrants('products/delete', () => del(`/api/products/${product}`))).status).toBe(204);
    expect(await historyOf(id, since)).toEqual(['3: 10.000000 → 8.000000', '4: PRICE', '5: 8.000000 → 13.000000', '6: PRICE', '7: 13.000000 → 12.000000', '7: deleted']);
  });

  it('from a stock stored as text (before stocks were numbers) is applied in a transaction, which stores it as a number', async () => {
    const id = await stocked(5);
    await db().send(new UpdateCommand({ TableName: tableName(), Key: elementKey(id), UpdateExpression: 'SET quantity = :text', ExpressionAttributeValues: { ':text': '5.000000' } }));
    expect(await stored(id)).toMatchObject({ type: 'S', stock: 5 });
    const taken = await put(`/api/pse/${id}`, { pse: [{ quantity_delta: -1 }] });
    expect(taken.body[0]).toMatchObject({ QUANTITY: '4.000000', VERSION: 3 });
    expect(await stored(id)).toMatchObject({ type: 'N', stock: 4 });
    expect((await put(`/api/pse/${id}`, { pse: [{ quantity_delta: -1 }] })).body[0]).toMatchObject({ QUANTITY: '3.000000', VERSION: 4 });
  });

  it('is applied once when its answer is lost: fenced, then found in the log, it answers its take', async () => {
    const id = await stocked(10);
    const since = await cursorNow('&resource=pse');
    // The take's UpdateItem is the only request that appends to a list.
    faults.loseAnswerOn('list_append');
    const lost = await put(`/api/pse/${id}`, { pse: [{ quantity_delta: -1 }] });
    expect(faults.lostAnswers()).toBe(1);
    expect(lost.status, lost.text).toBe(201);
    expect(lost.body[0]).toMatchObject({ QUANTITY: '9.000000', VERSION: 3 });
    // Sent again by the SDK, it would have taken two (or three).
    expect((await get(`/api/pse/${id}`)).body[0]).toMatchObject({ QUANTITY: '9.000000', VERSION: 3 });
    expect(await historyOf(id, since)).toEqual(['3: 10.000000 → 9.000000']);
  });

  it('fenced, drops the fences no copy of a request can outlive: those past 20 minutes', async () => {
    const id = await stocked(10);
    const now = Date.now();
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: elementKey(id),
        UpdateExpression: 'SET takeFences = :fences',
        ExpressionAttributeValues: { ':fences': { 'lost-long-ago': now - FENCE_KEPT_MS - 60_000, 'lost-a-minute-ago': now - 60_000 } },
      }),
    );
    faults.loseAnswerOn('list_append');
    const lost = await put(`/api/pse/${id}`, { pse: [{ quantity_delta: -1 }] });
    expect(lost.status, lost.text).toBe(201);
    const { Item } = await db().send(new GetItemCommand({ TableName: tableName(), Key: { pk: { S: `PSE#${id}` }, sk: { S: 'PSE' } }, ConsistentRead: true }));
    const fences = Object.keys(Item?.takeFences?.M ?? {});
    expect(fences).toHaveLength(2);
    expect(fences).toContain('lost-a-minute-ago');
    expect(fences).not.toContain('lost-long-ago');
    // The fenced take still applies once.
    expect((await get(`/api/pse/${id}`)).body[0]).toMatchObject({ QUANTITY: '9.000000', VERSION: 3 });
  });
});
