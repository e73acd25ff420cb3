/**
 * Writes under DynamoDB's own transaction conflicts (docs/conventions.md). Every request of this file
 * goes through the conflict-faithful proxy (lib/local/conflict-proxy.ts) in front of the run's
 * DynamoDB Local: a transaction on an item another transaction is writing is cancelled
 * (`TransactionConflict`), a single write to it refused (`TransactionConflictException`), as on AWS.
 */
import { setTimeout as pause } from 'node:timers/promises';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { DynamoDBClient, TransactionCanceledException, TransactionConflictException, ThrottlingException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, TransactGetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { endpointConfig } from '../lib/aws-endpoint.js';
import { tableName } from '../lib/db/client.js';
import { WriteConflict } from '../lib/db/errors.js';
import { toProblem } from '../lib/http/errors.js';
import { startConflictProxy, type ConflictProxy } from '../lib/local/conflict-proxy.js';
import { del, get, post, put, type ApiResponse } from './support/api.js';
import { followChanges, cursorNow } from './support/changes.js';
import { createProduct, createTaxRule, customerInput, productInput } from './support/fixtures.js';

// Conflicts are retried within a request's budget: here the invocation's 30 s rather than the API's
// 10 s, since how many retries fit in 10 s is this machine's speed (a loaded one answered 503s).
process.env.STORE_REQUEST_BUDGET_MS = '29000';
// Before the table is set up (test/support/table-per-file.ts): the API's client is made on first use.
const proxy = await startConflictProxy({ target: inject('dynamoEndpoint'), holdMs: 10 });
process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
afterAll(() => proxy.close());

describe('the conflict-faithful proxy', () => {
  type Proxied = { slow: ConflictProxy; client: DynamoDBDocumentClient };
  /** Runs `work` with a second proxy whose transactions stay in flight long enough to be met on purpose. */
  async function withSlowProxy(work: (proxied: Proxied) => Promise<void>, throttle?: { partitionKey: string; writesPerSecond: number }): Promise<void> {
    const slow = await startConflictProxy({ target: inject('dynamoEndpoint'), holdMs: 300, ...(throttle ? { throttle } : {}) });
    // One attempt a call: the SDK would retry a throttled call, and this shows what the proxy answers.
    const client = DynamoDBDocumentClient.from(new DynamoDBClient({ ...endpointConfig(slow.endpoint), maxAttempts: 1 }));
    try {
      await work({ slow, client });
    } finally {
      client.destroy();
      await slow.close();
    }
  }
  const TableName = tableName();
  const transaction = (...pks: string[]) => new TransactWriteCommand({ TransactItems: pks.map((pk) => ({ Put: { TableName, Item: { pk, sk: 'X', at: Date.now() } } })) });

  it('cancels a transaction on an item another transaction is writing, naming that item, and lets the first commit', () =>
    withSlowProxy(async (proxied) => {
      const first = proxied.client.send(transaction('PROXY#a', 'PROXY#shared'));
      await pause(50);
      const second = await proxied.client.send(transaction('PROXY#b', 'PROXY#shared')).catch((error: unknown) => error);
      expect(second).toBeInstanceOf(TransactionCanceledException);
      expect((second as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code)).toEqual(['None', 'TransactionConflict']);
      await first;
      expect(proxied.slow.counts().cancelled).toBe(1);
      // Once the first has answered, its items are free again.
      await proxied.client.send(transaction('PROXY#b', 'PROXY#shared'));
    }));

  it('refuses a single write to an item in a transaction, and cancels a transactional read of it', () =>
    withSlowProxy(async (proxied) => {
      const first = proxied.client.send(transaction('PROXY#c'));
      await pause(50);
      const single = await proxied.client
        .send(new UpdateCommand({ TableName, Key: { pk: 'PROXY#c', sk: 'X' }, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': 1 } }))
        .catch((error: unknown) => error);
      expect(single).toBeInstanceOf(TransactionConflictException);
      const read = await proxied.client.send(new TransactGetCommand({ TransactItems: [{ Get: { TableName, Key: { pk: 'PROXY#c', sk: 'X' } } }] })).catch((error: unknown) => error);
      expect((read as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code)).toEqual(['TransactionConflict']);
      await first;
      // Other items stay free for single writes.
      await proxied.client.send(new PutCommand({ TableName, Item: { pk: 'PROXY#d', sk: 'X' } }));
    }));

  it('answers a transaction sent again with its ClientRequestToken as the first time, once it committed, and refuses the token with another request', () =>
    withSlowProxy(async (proxied) => {
      // A create conditioned on the item being absent: applied twice, the second would fail.
      const create = (pk: string, token: string) =>
        new TransactWriteCommand({ ClientRequestToken: token, TransactItems: [{ Put: { TableName, Item: { pk, sk: 'X' }, ConditionExpression: 'attribute_not_exists(pk)' } }] });
      // The first still in flight when the same request comes again (an SDK retry after its time-out): the retry waits for it.
      const [first, again] = await Promise.all([proxied.client.send(create('PROXY#token', 'token-1')), pause(50).then(() => proxied.client.send(create('PROXY#token', 'token-1')))]);
      expect([first.$metadata.httpStatusCode, again.$metadata.httpStatusCode]).toEqual([200, 200]);
      expect(await proxied.client.send(create('PROXY#token', 'token-1'))).toBeDefined();
      // Another token is another transaction: the item exists now.
      expect(await proxied.client.send(create('PROXY#token', 'token-2')).catch((error: unknown) => (error as Error).name)).toBe('TransactionCanceledException');
      expect(await proxied.client.send(create('PROXY#other', 'token-1')).catch((error: unknown) => (error as Error).name)).toBe('IdempotentParameterMismatchException');
    }));

  it('throttles writes to one partition key past its rate, as a hot partition is', () =>
    withSlowProxy(
      async (proxied) => {
        const writes = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => proxied.client.send(new PutCommand({ TableName, Item: { pk: 'PROXY#hot', sk: `S${i}` } }))));
        expect(writes.filter((write) => write.status === 'rejected' && write.reason instanceof ThrottlingException).length).toBeGreaterThan(0);
        await proxied.client.send(new PutCommand({ TableName, Item: { pk: 'PROXY#cold', sk: 'X' } }));
      },
      { partitionKey: 'PROXY#hot', writesPerSecond: 2 },
    ));
});

/** Runs `clients` loops of `step` until `ms` have passed, each at least twice (a busy machine's 2 s may hold one); every answer's status, counted. */
async function load(clients: number, ms: number, step: (client: number) => Promise<ApiResponse[]>): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  const until = Date.now() + ms;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let round = 0; round < 2 || Date.now() < until; round++) for (const { status } of await step(client)) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }),
  );
  return statuses;
}

const failures = (statuses: Map<number, number>) => [...statuses].filter(([status]) => status >= 500 || status === 409);

describe('writes under conflicts', () => {
  it('creates, updates and deletes products from 16 clients without a 5xx or a 409; the total is exact and the feed holds each change once', async () => {
    const start = await cursorNow('&resource=product');
    const totalBefore = Number((await get('/api/products')).headers['x-total-count']);
    const [created, deleted, updated] = [new Set<number>(), new Set<number>(), { count: 0 }];
    const statuses = await load(16, 2_000, async () => {
      const create = await post('/api/products', productInput());
      if (create.status !== 201) return [create];
      const id = create.body[0].ID as number;
      created.add(id);
      const change = await put(`/api/products/${id}`, { price: 12.5 });
      if (change.status === 204) updated.count++;
      if (id % 2) return [create, change];
      const removal = await del(`/api/products/${id}`);
      if (removal.status === 204) deleted.add(id);
      return [create, change, removal];
    });
    expect(failures(statuses)).toEqual([]);
    expect(created.size).toBeGreaterThan(16);
    expect(Number((await get('/api/products')).headers['x-total-count'])).toBe(totalBefore + created.size - deleted.size);

    const { changes } = await followChanges(start, '&resource=product');
    const once = new Set(changes.map((change) => `${change.ENTITY_ID}#${change.TYPE}#${change.VERSION}`));
    expect(once.size).toBe(changes.length);
    expect(
      changes
        .filter((c) => c.TYPE === 'created')
        .map((c) => c.ENTITY_ID)
        .sort(),
    ).toEqual([...created].sort());
    expect(changes.filter((c) => c.TYPE === 'updated').length).toBe(updated.count);
    expect(
      changes
        .filter((c) => c.TYPE === 'deleted')
        .map((c) => c.ENTITY_ID)
        .sort(),
    ).toEqual([...deleted].sort());
  });

  it('applies batches of upserts that overlap from 4 clients without a 5xx or a 409 in any row, one record per ref', async () => {
    const refs = Array.from({ length: 12 }, (_, i) => `BATCH-CONFLICT-${process.pid}-${i}`);
    const rowStatuses = new Map<number, number>();
    const statuses = await load(4, 2_000, async (client) => {
      // Each client upserts every ref, from its own place in the list: batches overlap, rows of one batch never do.
      const rows = refs.map((_, i) => ({ op: 'upsert', ...productInput({ ref: refs[(i + client * 3) % refs.length], price: String(client + 1) }) }));
      const answer = await post('/api/products/batch', { rows });
      for (const result of answer.status === 200 ? answer.body : []) rowStatuses.set(result.STATUS, (rowStatuses.get(result.STATUS) ?? 0) + 1);
      return [answer];
    });
    expect(failures(statuses)).toEqual([]);
    expect(failures(rowStatuses)).toEqual([]);
    expect([...rowStatuses.keys()].sort()).toEqual([201, 204]);
    for (const ref of refs) expect((await get(`/api/products?ref=${ref}`)).body).toHaveLength(1);
  });

  it('retries the writers of one record until each has written, without a 409, and each version once', async () => {
    const { row } = await createProduct();
    const cancelledBefore = proxy.counts().cancelled;
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => put(`/api/products/${row.ID}`, { price: 10 + i })));
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(204));
    expect((await get(`/api/products/${row.ID}`)).body[0].VERSION).toBe(row.VERSION + 8);
    // They did meet: the proxy cancelled some of their transactions, which were tried again.
    expect(proxy.counts().cancelled).toBeGreaterThan(cancelledBefore);
  });

  it('creates and deletes customers from 16 clients at once, the total exact', async () => {
    const totalBefore = Number((await get('/api/customers')).headers['x-total-count']);
    let net = 0;
    const statuses = await load(16, 1_000, async () => {
      const create = await post('/api/customers', customerInput());
      if (create.status !== 201) return [create];
      net++;
      if (Math.random() < 0.5) return [create];
      const removal = await del(`/api/customers/${create.body[0].ID}`);
      if (removal.status === 204) net--;
      return [create, removal];
    });
    expect(failures(statuses)).toEqual([]);
    expect(Number((await get('/api/customers')).headers['x-total-count'])).toBe(totalBefore + net);
  });

  it('counts products in and out of one tax rule from concurrent writers, and refuses its deletion exactly while one uses it', async () => {
    const rule = (await createTaxRule()).ID as number;
    const ids = (await Promise.all(Array.from({ length: 12 }, () => post('/api/products', productInput({ tax_rule: rule }))))).map((answer) => {
      expect(answer.status).toBe(201);
      return answer.body[0].ID as number;
    });
    const [last, ...others] = ids;
    expect((await Promise.all(others.map((id) => del(`/api/products/${id}`)))).map((answer) => answer.status)).toEqual(Array(others.length).fill(204));
    const refused = await del(`/api/tax-rules/${rule}`);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain('used by 1 product(s)');
    expect((await del(`/api/products/${last}`)).status).toBe(204);
    expect((await del(`/api/tax-rules/${rule}`)).status).toBe(204);
    expect((await post('/api/products', productInput({ tax_rule: rule }))).status).toBe(400);
  });

  it('answers a conflict that escapes its retries 503 with Retry-After, never 500', () => {
    const problem = toProblem(new WriteConflict());
    expect(problem.status).toBe(503);
    expect(problem.headers['Retry-After']).toBe('1');
  });
});
