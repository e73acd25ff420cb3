/**
 * DynamoDB requests per route: a deterministic budget (get 1, list page 2 at once: the page and its
 * total's shards; create ≤ 2 ...; a product read 1 and a product page 3 in parallel once the
 * container has cached the tax rules). Counted at the SDK's initialize step: one per logical request.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../lib/api-keys/index.js';
import { db } from '../lib/db/client.js';
import { get, post, put, del, superadminKey } from './support/api.js';
import { createCustomer, createProduct, customerInput, productInput } from './support/fixtures.js';

let requests = 0;

async function count(action: () => Promise<{ status: number }>, expectedStatus: number): Promise<number> {
  requests = 0;
  const response = await action();
  expect(response.status).toBe(expectedStatus);
  return requests;
}

beforeAll(async () => {
  db().middlewareStack.add(
    (next) => async (args) => {
      requests++;
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
  // The API key is cached per container after its first use: warm it.
  await superadminKey();
  await get('/api/tax-rules/1');
});

describe('tax-rule routes', () => {
  it('stay within their DynamoDB request budget', async () => {
    expect(await count(() => get('/api/tax-rules/1'), 200)).toBe(1);
    // The rules' summaries, then the page's rules in one batch.
    expect(await count(() => get('/api/tax-rules'), 200)).toBe(2);
    let id = 0;
    expect(
      await count(async () => {
        const response = await post('/api/tax-rules', { country: [64], tax: [1], i18n: [{ locale: 'en_US', title: 'Counted' }] });
        id = response.body[0].ID;
        return response;
      }, 201),
    ).toBeLessThanOrEqual(2);
    // Making a rule the default also reads the former default, to record the change of its flag.
    expect(await count(() => put('/api/tax-rules', { id, default: true }), 201)).toBeLessThanOrEqual(3);
    expect(await count(() => put('/api/tax-rules', { id: 1, default: true }), 201)).toBeLessThanOrEqual(3);
    // The rule and how many products use it (its count's shards), then the delete.
    expect(await count(() => del(`/api/tax-rules/${id}`), 204)).toBeLessThanOrEqual(3);
  });
});

describe('customer routes', () => {
  it('stay within their DynamoDB request budget', async () => {
    const { row, input } = await createCustomer();
    expect(await count(() => get(`/api/customers/${row.ID}`), 200)).toBe(1);
    // A list of every customer queries its 4 shards at once (lib/customers/entity.ts), beside its count.
    expect(await count(() => get('/api/customers'), 200)).toBe(5);
    expect(await count(() => get('/api/customers?order=lastname_reverse'), 200)).toBe(5);
    expect(await count(() => post('/api/customers', customerInput()), 201)).toBeLessThanOrEqual(2);
    // A check reads the email's lock while it reserves its attempt (the first check of a window also
    // opens it: one more write); a success reads the customer while it gives the attempt back.
    expect(await count(() => post('/api/customers/checkLogin', { email: input.email, password: input.password }), 200)).toBeLessThanOrEqual(5);
    expect(await count(() => post('/api/customers/checkLogin', { email: input.email, password: 'wrong password' }), 404)).toBeLessThanOrEqual(3);
    expect(await count(() => put('/api/customers', { id: row.ID, city: 'Lille', zipcode: '59000' }), 201)).toBeLessThanOrEqual(2);
    expect(await count(() => del(`/api/customers/${row.ID}`), 204)).toBeLessThanOrEqual(2);
  });
});

describe('product routes', () => {
  it('stay within their DynamoDB request budget', async () => {
    const { row } = await createProduct();
    // The first read caches the container's tax rules; later ones need only the product and the rules' version.
    expect(await count(() => get(`/api/products/${row.ID}`), 200)).toBe(2);
    expect(await count(() => get(`/api/products/${row.ID}`), 200)).toBe(1);
    // A list of every product queries its 8 shards at once (lib/products/entity.ts), beside its count and the rules' version.
    expect(await count(() => get('/api/products'), 200)).toBe(10);
    // A filtered list has no total.
    expect(await count(() => get('/api/products?visible=0&order=ref'), 200)).toBe(9);
    // A create allocates its default sale element's id too (docs/api.md).
    expect(await count(() => post('/api/products', productInput()), 201)).toBeLessThanOrEqual(4);
    // A new price reads the default sale element that follows it; a new title does not.
    expect(await count(() => put(`/api/products/${row.ID}`, { price: 3, tax_rule: 2 }), 204)).toBeLessThanOrEqual(4);
    expect(await count(() => put(`/api/products/${row.ID}`, { locale: 'en_US', title: 'Renamed' }), 204)).toBeLessThanOrEqual(2);
    // A delete reads the sale elements it deletes with the product, and their count.
    expect(await count(() => del(`/api/products/${row.ID}`), 204)).toBeLessThanOrEqual(4);
  });
});

describe('sale element routes and batches', () => {
  it('read what a batch’s rows need together and write its rows many to a transaction: a stock sync of 64 rows costs a handful of calls', async () => {
    const references: string[] = [];
    const productIds: number[] = [];
    for (let p = 0; p < 8; p++) {
      const { row } = await createProduct();
      productIds.push(row.ID);
      const rows = Array.from({ length: 7 }, (_, v) => ({ op: 'create', product_id: row.ID, reference: `COUNTED-${row.ID}-${v}`, currency_id: 1, price: '5' }));
      expect((await post('/api/pse/batch', { rows })).body.every((result: { STATUS: number }) => result.STATUS === 201)).toBe(true);
      references.push(row.REF, ...rows.map((variant) => variant.reference));
    }
    expect(references).toHaveLength(64);
    const rows = references.map((reference, n) => ({ op: 'upsert', reference, quantity: n }));
    // The 64 rows planned at once: their locks, sale elements, products and rules read in one BatchGet each, then two transactions.
    expect(await count(() => post('/api/pse/batch', { rows }), 200)).toBeLessThanOrEqual(12);
    const synced = (await Promise.all(productIds.map(async (id) => (await get(`/api/pse/product/${id}`)).body))).flat();
    expect(Object.fromEntries(synced.map((element: { REF: string; QUANTITY: string }) => [element.REF, Number(element.QUANTITY)]))).toEqual(
      Object.fromEntries(references.map((reference, n) => [reference, n])),
    );
  });

  it("hand out a turn's new ids by one call a counter: 32 products created by one batch allocate theirs and their sale elements' in two", async () => {
    const rows = Array.from({ length: 32 }, () => ({ op: 'create', ...productInput() }));
    const calls = await count(() => post('/api/products/batch', { rows }), 200);
    // The two allocations, the rows' reads (one BatchGet a kind), their packed transactions: never a call a row (69 when each row allocated its own).
    expect(calls).toBeLessThanOrEqual(10);
  });

  it('send a pack again without the row whose condition stopped it: one stale version costs one more transaction, not a transaction a row', async () => {
    const { row } = await createProduct();
    const rows = Array.from({ length: 7 }, (_, v) => ({ op: 'create', product_id: row.ID, reference: `PACKED-${row.ID}-${v}`, currency_id: 1, price: '5' }));
    const made = (await post('/api/pse/batch', { rows })).body as Array<{ ID: number }>;
    const stale = { op: 'update', id: made[3]!.ID, version: 7, quantity: 1 };
    const updates = made.map((element, n) => (n === 3 ? stale : { op: 'update', id: element.ID, quantity: 10 + n }));
    let results: Array<{ STATUS: number }> = [];
    const calls = await count(async () => {
      const answer = await post('/api/pse/batch', { rows: updates });
      results = answer.body;
      return answer;
    }, 200);
    expect(results.map((result) => result.STATUS)).toEqual([201, 201, 201, 412, 201, 201, 201]);
    // Read together, sent packed, stopped by the stale row, sent again without it; the stale row alone finds its 412 (14 when the pack's other rows went alone too).
    expect(calls).toBeLessThanOrEqual(9);
  });

  it('take stock in one UpdateItem (sent by a client of its own, once), then one transaction recording the take, and the reads of its row', async () => {
    const { row } = await createProduct();
    const [element] = (await get(`/api/pse/product/${row.ID}`)).body;
    expect((await put(`/api/pse/${element.ID}`, { pse: [{ quantity: 5 }] })).status).toBe(201);
    // Counted here: the transaction, then the product's read for the row, with the rules' version (the
    // rule cached). A take that went the way of other writes would read the sale element first: 3.
    expect(await count(() => put(`/api/pse/${element.ID}`, { pse: [{ quantity_delta: -1 }] }), 201)).toBe(2);
  });

  it('read a sale element with its product and the rules’ version in one call, the rule cached', async () => {
    const { row } = await createProduct();
    const [element] = (await get(`/api/pse/product/${row.ID}`)).body;
    // The sale element, then its product beside the rules' version.
    expect(await count(() => get(`/api/pse/${element.ID}`), 200)).toBe(2);
    // The product beside the rules' version, and its sale elements' list, at once.
    expect(await count(() => get(`/api/pse/product/${row.ID}`), 200)).toBe(2);
    // A stock set: the sale element, its product beside the rules' version, the transaction.
    expect(await count(() => put(`/api/pse/${element.ID}`, { pse: [{ quantity: 7 }] }), 201)).toBe(3);
  });

  it('never share a call between two requests: reads asked at once by two requests are two calls', async () => {
    const [a, b] = await Promise.all([createProduct(), createProduct()]);
    const alone = await count(() => get(`/api/pse/product/${a.row.ID}`), 200);
    expect(await count(async () => (await Promise.all([get(`/api/pse/product/${a.row.ID}`), get(`/api/pse/product/${b.row.ID}`)]))[0]!, 200)).toBe(2 * alone);
  });
});

describe('a key with a quota', () => {
  it('costs one write per lease of its quota, not one per request', async () => {
    // 1 200 per minute: leases of 7 (lib/db/quota-windows.ts); a day's window keeps this test in one.
    const key = await createApiKey({ label: 'counted', superadmin: true, quota: { requests: 1_200, seconds: 86_400 } });
    let total = 0;
    for (let i = 0; i < 21; i++) total += await count(() => get('/api/tax-rules/1', { as: key }), 200);
    // 21 reads, the key's first lookup, and a lease taken for the first request then beside every seventh.
    expect(total).toBeLessThanOrEqual(21 + 1 + 1 + 3);
  });
});
