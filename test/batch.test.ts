/**
 * Batch writes (docs/batches-and-client.md) as an integrator meets them: one answer with a result per row, in
 * order, as the single routes would answer; upsert by natural key; all or nothing when atomic; an
 * Idempotency-Key that applies nothing twice; one quota unit a row; nothing written when the batch
 * as a whole is refused.
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../lib/api-keys/index.js';
import { db, tableName } from '../lib/db/client.js';
import { del, get, keyWith, post, problemFields, tableSnapshot } from './support/api.js';
import { cursorNow, followChanges } from './support/changes.js';
import { CONTRACT_ROW_KEYS } from './support/contract-rows.js';
import { createCategory, createProduct, createTaxRule, customerInput, productInput, uniqueRef } from './support/fixtures.js';

const batch = (resource: string, rows: unknown[], options: Parameters<typeof post>[2] & { atomic?: boolean } = {}) =>
  post(`/api/${resource}/batch`, { rows, ...(options.atomic ? { atomic: true } : {}) }, options);

/** The table without what a refused batch may leave: the id counters it moved (as a refused create does). */
const withoutCounters = (items: Record<string, unknown>[]) => items.filter((item) => !String(item.pk).startsWith('COUNTER#'));

describe('POST /api/products/batch', () => {
  it('answers one result per row, in order, each as the single route would, and records one change per applied row', async () => {
    const start = await cursorNow('&resource=product');
    const [kept, gone] = [(await createProduct()).row, (await createProduct()).row];
    const ref = uniqueRef('BATCH');
    const answer = await batch('products', [
      { op: 'create', ...productInput({ ref, title: 'Made in a batch' }) },
      { op: 'update', id: kept.ID, price: '42' },
      { op: 'delete', id: gone.ID },
      { op: 'create', ...productInput({ price: '-1' }) },
      { op: 'update', id: 987654, price: '1' },
      { op: 'update', id: kept.ID + 1000, version: 1, price: '1' },
    ]);
    expect(answer.status).toBe(200);
    const results = answer.body;
    expect(results.map((r: { INDEX: number; STATUS: number }) => [r.INDEX, r.STATUS])).toEqual([
      [0, 201],
      [1, 204],
      [2, 204],
      [3, 400],
      [4, 404],
      [5, 404],
    ]);
    expect(Object.keys(results[0].ROW)).toEqual([...CONTRACT_ROW_KEYS.product]);
    expect(results[0]).toMatchObject({ ID: results[0].ROW.ID, ROW: { REF: ref, TITLE: 'Made in a batch', LOOP_COUNT: 1, LOOP_TOTAL: 1 } });
    expect(results[1]).toEqual({ INDEX: 1, STATUS: 204, ID: kept.ID });
    expect(results[3]).toMatchObject({ ID: null, PROBLEM: { status: 400, errors: [{ field: 'rows[3].price' }] } });
    expect((await get(`/api/products/${kept.ID}`)).body[0].PRICE).toBe('42.000000');
    expect((await get(`/api/products/${gone.ID}`)).status).toBe(404);
    // One change per applied row, each under the batch's one request id.
    const { changes } = await followChanges(start, '&resource=product');
    const batchRequest = changes.find((c) => c.ENTITY_ID === results[0].ID)!.REQUEST_ID;
    const batchChanges = changes.filter((c) => c.REQUEST_ID === batchRequest);
    expect(batchChanges.map((c) => [c.ENTITY_ID, c.TYPE]).sort()).toEqual(
      [
        [results[0].ID, 'created'],
        [kept.ID, 'updated'],
        [gone.ID, 'deleted'],
      ].sort(),
    );
  });

  it('upserts by ref: creates the product the first time, updates it the next', async () => {
    const ref = uniqueRef('UPSERT');
    const first = await batch('products', [{ op: 'upsert', ...productInput({ ref, price: '10' }) }]);
    expect(first.body[0]).toMatchObject({ STATUS: 201, ROW: { REF: ref, PRICE: '10.000000' } });
    const second = await batch('products', [{ op: 'upsert', ...productInput({ ref: ref.toLowerCase(), price: '12' }) }]);
    expect(second.body[0]).toEqual({ INDEX: 0, STATUS: 204, ID: first.body[0].ID });
    expect((await get(`/api/products/${first.body[0].ID}`)).body[0]).toMatchObject({ PRICE: '12.000000', VERSION: 2 });
  });

  it('refuses the whole batch, writing nothing, past 100 rows, with two rows on one record, or for an op its key may not do', async () => {
    const product = (await createProduct()).row;
    const creator = await keyWith({ product: ['CREATE'] });
    const before = await tableSnapshot();
    const tooMany = await batch(
      'products',
      Array.from({ length: 101 }, () => ({ op: 'create', ...productInput() })),
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors).toEqual([{ field: 'rows', message: 'holds at most 100 rows' }]);
    const twice = await batch('products', [
      { op: 'update', id: product.ID, price: '1' },
      { op: 'delete', id: product.ID },
    ]);
    expect(twice.status).toBe(400);
    expect(problemFields(twice)).toEqual(['rows[1]']);
    const forbidden = await batch(
      'products',
      [
        { op: 'create', ...productInput() },
        { op: 'delete', id: product.ID },
      ],
      { as: creator },
    );
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.detail).toContain('DELETE');
    expect(withoutCounters(await tableSnapshot())).toEqual(withoutCounters(before));
  });

  it('applies atomically rows that count into one shard: two products 16 ids apart moved to one rule count twice there', async () => {
    const rule = await createTaxRule();
    const made: number[] = [];
    for (let i = 0; i < 17; i++) made.push((await createProduct()).row.ID as number);
    const [first, seventeenth] = [made[0], made[16]];
    const moved = await batch(
      'products',
      [
        { op: 'update', id: first, tax_rule: rule.ID },
        { op: 'update', id: seventeenth, tax_rule: rule.ID },
      ],
      { atomic: true },
    );
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.map((r: { STATUS: number }) => r.STATUS)).toEqual([204, 204]);
    expect((await del(`/api/tax-rules/${rule.ID}`)).body.detail).toBe(`tax rule ${rule.ID} is used by 2 product(s)`);
  });

  it('applies every row or none with atomic: true', async () => {
    const product = (await createProduct()).row;
    const before = await tableSnapshot();
    const failed = await batch(
      'products',
      [
        { op: 'update', id: product.ID, price: '5' },
        { op: 'update', id: product.ID + 5000, price: '6' },
      ],
      { atomic: true },
    );
    expect(failed.body.map((r: { STATUS: number }) => r.STATUS)).toEqual([424, 404]);
    const stale = await batch('products', [{ op: 'update', id: product.ID, version: 7, price: '5' }], { atomic: true });
    expect(stale.body[0].STATUS).toBe(412);
    expect(withoutCounters(await tableSnapshot())).toEqual(withoutCounters(before));
    const category = await createCategory();
    const applied = await batch(
      'products',
      [
        { op: 'update', id: product.ID, price: '5', default_category: category.ID },
        { op: 'create', ...productInput({ default_category: category.ID }) },
      ],
      { atomic: true },
    );
    expect(applied.body.map((r: { STATUS: number }) => r.STATUS)).toEqual([204, 201]);
    expect((await get(`/api/products?category_default=${category.ID}`)).body).toHaveLength(2);
    // 25 creates make more writes than one transaction holds: the bound is said, nothing written.
    const large = await batch(
      'products',
      Array.from({ length: 25 }, () => ({ op: 'create', ...productInput() })),
      { atomic: true },
    );
    expect(large.status).toBe(400);
    expect(large.body.detail).toContain('one DynamoDB transaction of 100 writes');
    expect(
      (
        await batch(
          'products',
          Array.from({ length: 26 }, () => ({ op: 'delete', id: 1 })),
          { atomic: true },
        )
      ).body.errors,
    ).toEqual([{ field: 'rows', message: 'holds at most 25 rows when atomic is true' }]);
  });

  it('replays a batch sent again with its Idempotency-Key, applying nothing twice, also after an attempt cut off before its answer was recorded', async () => {
    const ref = uniqueRef('IDEM');
    const rows = [
      { op: 'create', ...productInput({ ref }) },
      { op: 'create', ...productInput({ price: 'x' }) },
    ];
    const key = { headers: { 'idempotency-key': `batch-${ref}` } };
    const first = await batch('products', rows, key);
    const again = await batch('products', rows, key);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    // An attempt that applied its rows and died before recording its answer: its lease and record are gone, its rows' markers stay.
    const { apiKey } = await (await import('./support/api.js')).superadminKey();
    const scope = `${apiKey}#${(await import('node:crypto')).createHash('sha256').update(`batch-${ref}`).digest('base64url')}`;
    await db().send(new DeleteCommand({ TableName: tableName(), Key: { pk: `IDEMPOTENCY#${scope}`, sk: 'RECORD' } }));
    const start = await cursorNow('&resource=product');
    const retried = await batch('products', rows, key);
    expect(retried.body).toEqual(first.body);
    expect((await followChanges(start, '&resource=product')).changes).toEqual([]);
    expect((await get(`/api/products?ref=${ref}`)).body).toHaveLength(1);
  });

  it('costs one quota unit a row, and past the quota is a 429 that applies nothing', async () => {
    // A day's window keeps the test in one: a minute's may turn between the two batches (r=4, a fresh window, was seen).
    const limited = await createApiKey({ label: 'batch quota', superadmin: true, quota: { requests: 8, seconds: 86_400 } });
    const five = await batch(
      'products',
      Array.from({ length: 5 }, () => ({ op: 'create', ...productInput() })),
      { as: limited },
    );
    expect(five.status).toBe(200);
    expect(five.headers.ratelimit).toMatch(/^"default";r=3;/);
    const refusedRows = Array.from({ length: 5 }, () => ({ op: 'create', ...productInput() }));
    const refused = await batch('products', refusedRows, { as: limited });
    expect(refused.status).toBe(429);
    for (const row of refusedRows) expect((await get(`/api/products?ref=${row.ref}`)).body).toEqual([]);
  });
});

describe('POST /api/customers/batch and /api/categories/batch', () => {
  it('upserts customers by email, case aside, and answers their rows as the single routes do', async () => {
    const input = customerInput();
    const created = await batch('customers', [{ op: 'upsert', ...input }]);
    expect(created.body[0]).toMatchObject({ STATUS: 201, ROW: { EMAIL: input.email } });
    const updated = await batch('customers', [{ op: 'upsert', ...input, email: input.email.toUpperCase(), city: 'Lyon', zipcode: '69001' }]);
    expect(updated.body[0]).toMatchObject({ STATUS: 201, ID: created.body[0].ID, ROW: { CITY: 'Lyon', VERSION: 2 } });
  });

  it('creates, updates and deletes categories, and takes no upsert: they have no natural key', async () => {
    const parent = await createCategory();
    const answer = await batch('categories', [
      { op: 'create', title: 'Child', locale: 'en_US', parent: parent.ID },
      { op: 'update', id: parent.ID, visible: 1 },
      { op: 'upsert', title: 'No key', locale: 'en_US' },
    ]);
    expect(answer.body.map((r: { STATUS: number }) => r.STATUS)).toEqual([201, 201, 400]);
    expect(answer.body[1].ROW).toMatchObject({ ID: parent.ID, VISIBLE: 1 });
    expect(problemFields({ ...answer, body: answer.body[2].PROBLEM })).toEqual(['rows[2].op']);
  });
});
