/**
 * docs/changes-events-webhooks.md as a client meets it: every committed write records its change (who, what, field by
 * field), a failed one records none, and `GET /api/changes` follows them by cursor, with each key
 * seeing only the resources it may view.
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../lib/api-keys/index.js';
import { onCommitted } from '../lib/db/commits.js';
import { pendingPartition, recordsAChange } from '../lib/db/changes.js';
import { del, get, keyWith, logLines, post, put, superadminKey } from './support/api.js';
import { cursorNow, followChanges as follow, type ChangeRow } from './support/changes.js';
import { createCustomer, createProduct, createTaxRule, customerInput, productInput, uniqueRef } from './support/fixtures.js';

/** The request log's id of the last request to `method path`. */
function requestIdOf(method: string, path: string): string {
  const line = logLines.map((text) => JSON.parse(text) as { method?: string; path?: string; requestId?: string }).findLast((entry) => entry.method === method && entry.path === path);
  return line!.requestId!;
}

const field = (change: ChangeRow, name: string, locale: string | null = null) => change.CHANGES.find((c) => c.field === name && c.locale === locale);

describe('a change, recorded with its write', () => {
  it('records a product created, updated and deleted: its fields before and after, its versions, the key and the request', async () => {
    const start = await cursorNow('&resource=product');
    const { apiKey } = await superadminKey();
    const ref = uniqueRef('AUDIT');
    const created = await createProduct({ ref, price: '10.5', title: 'Lamp', chapo: 'A lamp' });
    const id = created.row.ID as number;
    expect((await put(`/api/products/${id}`, { price: '12', locale: 'fr_FR', title: 'Lampe' })).status).toBe(204);
    const updateRequest = requestIdOf('PUT', `/api/products/${id}`);
    expect((await del(`/api/products/${id}`)).status).toBe(204);

    const { changes } = await follow(start, '&resource=product');
    const mine = changes.filter((c) => c.ENTITY_ID === id);
    expect(mine.map((c) => [c.TYPE, c.VERSION])).toEqual([
      ['created', 1],
      ['updated', 2],
      ['deleted', 2],
    ]);
    const [create, update, remove] = mine as [ChangeRow, ChangeRow, ChangeRow];
    // A create lists every field the record holds, before null; derived keys never.
    expect(create.CHANGES.map((c) => c.field)).toEqual(['REF', 'TITLE', 'CHAPO', 'PRICE', 'CURRENCY', 'WEIGHT', 'VISIBLE', 'DEFAULT_CATEGORY', 'TAX_RULE_ID', 'BRAND_ID']);
    expect(field(create, 'PRICE')).toEqual({ field: 'PRICE', locale: null, before: null, after: '10.500000' });
    expect(field(create, 'TITLE', 'en_US')).toEqual({ field: 'TITLE', locale: 'en_US', before: null, after: 'Lamp' });
    // An update lists exactly what changed; a new locale's text has no before.
    expect(update.CHANGES).toEqual([
      { field: 'TITLE', locale: 'fr_FR', before: null, after: 'Lampe' },
      { field: 'PRICE', locale: null, before: '10.500000', after: '12.000000' },
    ]);
    expect(update.REQUEST_ID).toBe(updateRequest);
    // A delete lists every field, after null.
    expect(remove.CHANGES.map((c) => c.after)).toEqual(remove.CHANGES.map(() => null));
    expect(field(remove, 'TITLE', 'fr_FR')).toEqual({ field: 'TITLE', locale: 'fr_FR', before: 'Lampe', after: null });
    for (const change of mine) {
      expect(change).toMatchObject({ RESOURCE: 'product', API_KEY: apiKey });
      expect(change.DATE).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Object.keys(change)).toEqual(['ID', 'RESOURCE', 'ENTITY_ID', 'TYPE', 'VERSION', 'CHANGES', 'API_KEY', 'REQUEST_ID', 'DATE', 'LOOP_COUNT', 'LOOP_TOTAL']);
    }
    expect(new Set(mine.map((c) => c.ID)).size).toBe(3);

    // The record's history: the same changes, by resource and id.
    const whole = await get(`/api/changes?resource=product&entity_id=${id}`);
    expect((whole.body as ChangeRow[]).map((c) => c.ID)).toEqual(mine.map((c) => c.ID));
  });

  it("dates a change as its record's write: one clock read makes the row's CREATE_DATE or UPDATE_DATE and the change's DATE", async () => {
    const start = await cursorNow('&resource=product');
    const created = await createProduct({ ref: uniqueRef('DATED'), title: 'Dated' });
    const id = created.row.ID as number;
    for (const price of ['11', '12', '13']) expect((await put(`/api/products/${id}`, { price })).status).toBe(204);
    const [row] = (await get<Array<{ UPDATE_DATE: string }>>(`/api/products/${id}`)).body;
    const mine = (await follow(start, '&resource=product')).changes.filter((c) => c.ENTITY_ID === id);
    expect(mine.map((c) => c.VERSION)).toEqual([1, 2, 3, 4]);
    expect(mine[0]!.DATE).toBe(created.row.CREATE_DATE);
    expect(mine[3]!.DATE).toBe(row!.UPDATE_DATE);
  });

  it('records a customer password change without any value, and never the password or its hash', async () => {
    const start = await cursorNow('&resource=customer');
    const customer = (await createCustomer()).row;
    expect((await put('/api/customers', { id: customer.ID, password: 'another long password', city: 'Nantes' })).status).toBe(201);
    const { changes } = await follow(start, '&resource=customer');
    const [create, update] = changes.filter((c) => c.ENTITY_ID === customer.ID) as [ChangeRow, ChangeRow];
    expect(field(create, 'PASSWORD')).toEqual({ field: 'PASSWORD', locale: null, before: null, after: null });
    expect(field(create, 'EMAIL')!.after).toBe(customer.EMAIL);
    expect(update.CHANGES).toEqual([
      { field: 'CITY', locale: null, before: customer.CITY, after: 'Nantes' },
      { field: 'PASSWORD', locale: null, before: null, after: null },
    ]);
    expect(changes.map((c) => c.CHANGES.map((f) => f.field))).not.toContainEqual(expect.arrayContaining(['REF']));
  });

  it('records two changes when a rule becomes the default: the flag it takes from the former default', async () => {
    const start = await cursorNow('&resource=tax-rule');
    const former = ((await get('/api/tax-rules?limit=100')).body as { ID: number; IS_DEFAULT: number; VERSION: number }[]).find((rule) => rule.IS_DEFAULT === 1)!;
    const rule = await createTaxRule({ default: true });
    const { changes } = await follow(start, '&resource=tax-rule');
    // One transaction, two records: the contract orders each record's changes, not the two.
    const byRecord = new Map(changes.map((c) => [c.ENTITY_ID, c]));
    expect(changes).toHaveLength(2);
    expect(byRecord.get(rule.ID)).toMatchObject({ TYPE: 'created', VERSION: 1 });
    expect(field(byRecord.get(rule.ID)!, 'IS_DEFAULT')!.after).toBe(1);
    expect(byRecord.get(former.ID)).toMatchObject({ TYPE: 'updated', VERSION: former.VERSION + 1, CHANGES: [{ field: 'IS_DEFAULT', locale: null, before: 1, after: 0 }] });
  });

  it("records a tax rule updated (a locale's texts, its countries) and deleted, each at its version", async () => {
    const start = await cursorNow('&resource=tax-rule');
    const rule = await createTaxRule({ country: [64], i18n: [{ locale: 'en_US', title: 'Rule', description: 'Before' }] });
    const updated = await put('/api/tax-rules', { id: rule.ID, country: [64, 13], i18n: [{ locale: 'en_US', description: 'After' }] });
    expect(updated.status).toBe(201);
    expect((await del(`/api/tax-rules/${rule.ID}`)).status).toBe(204);
    const { changes } = await follow(start, '&resource=tax-rule');
    expect(changes.map((c) => [c.ENTITY_ID, c.TYPE, c.VERSION])).toEqual([
      [rule.ID, 'created', 1],
      [rule.ID, 'updated', 2],
      [rule.ID, 'deleted', 2],
    ]);
    expect(changes[1]!.CHANGES).toEqual([
      { field: 'DESCRIPTION', locale: 'en_US', before: 'Before', after: 'After' },
      { field: 'COUNTRIES', locale: null, before: [64], after: [64, 13] },
    ]);
    expect(changes[2]!.CHANGES).toContainEqual({ field: 'TITLE', locale: 'en_US', before: 'Rule', after: null });
  });

  it('records nothing for a write that fails: 400, 404, 409, 412, or a transaction cancelled by a taken value', async () => {
    const product = (await createProduct()).row;
    const start = await cursorNow();
    const failures = [
      await post('/api/products', { ...productInput(), price: 'cheap' }),
      await put('/api/products/999999', { price: 3 }),
      await post('/api/products', productInput({ ref: product.REF })),
      await put(`/api/products/${product.ID}`, { price: 3 }, { headers: { 'if-match': '"7"' } }),
      await put(`/api/products/${product.ID}`, { ref: (await createProduct()).row.REF }),
      await del('/api/tax-rules/1'),
      await post('/api/customers', { ...customerInput(), email: 'not an email' }),
    ];
    expect(failures.map((r) => r.status)).toEqual([400, 404, 409, 412, 409, 409, 400]);
    const { changes } = await follow(start);
    // Only the product the fifth step made to take a ref from, and its default sale element (one write: either order).
    expect(changes.map((c) => [c.RESOURCE, c.TYPE, c.ENTITY_ID]).sort(), JSON.stringify(changes.map((c) => c.REQUEST_ID))).toEqual([
      ['product', 'created', expect.any(Number)],
      ['pse', 'created', expect.any(Number)],
    ]);
  });

  it('tells this process of each transaction that recorded a change once it committed, never of a cancelled one (what wakes npm start’s placer)', async () => {
    const product = (await createProduct()).row;
    const heard: boolean[] = [];
    const stop = onCommitted((steps) => heard.push(recordsAChange(steps)));
    const changesHeard = () => heard.filter(Boolean).length;
    try {
      expect((await put(`/api/products/${product.ID}`, { price: 4 })).status).toBe(204);
      expect(changesHeard()).toBe(1);
      expect((await post('/api/products', productInput({ ref: product.REF }))).status).toBe(409);
      expect(changesHeard()).toBe(1);
    } finally {
      stop();
    }
    expect((await put(`/api/products/${product.ID}`, { price: 5 })).status).toBe(204);
    expect(changesHeard()).toBe(1);
  });

  it('records API keys created and revoked, never their secure key, shown to superadmins only', async () => {
    const start = await cursorNow('&resource=api-key');
    const key = await createApiKey({ label: 'audited', grants: { product: ['VIEW'] } });
    await revokeApiKey(key.apiKey);
    const { changes } = await follow(start, '&resource=api-key');
    const mine = changes.filter((c) => c.ENTITY_ID === key.apiKey);
    expect(mine.map((c) => [c.TYPE, c.VERSION])).toEqual([
      ['created', 1],
      ['updated', 2],
    ]);
    expect(mine[0]!.CHANGES).toEqual([
      { field: 'LABEL', locale: null, before: null, after: 'audited' },
      { field: 'SUPERADMIN', locale: null, before: null, after: 0 },
      { field: 'GRANTS', locale: null, before: null, after: { product: ['VIEW'] } },
    ]);
    expect(mine[1]!.CHANGES).toEqual([{ field: 'REVOKED_AT', locale: null, before: null, after: expect.stringMatching(/^\d{4}-/) }]);
    expect(JSON.stringify(changes)).not.toContain(key.secureKey);
    const viewer = await keyWith({ product: ['VIEW'], customer: ['VIEW'], tax: ['VIEW'] });
    expect((await get('/api/changes?resource=api-key', { as: viewer })).status).toBe(403);
  });
});

describe('GET /api/changes', () => {
  it("shows a key the changes of the resources it may view, and refuses another resource's with 403", async () => {
    const productViewer = await keyWith({ product: ['VIEW'] });
    const start = await cursorNow('', productViewer);
    await createProduct();
    await createCustomer();
    const { changes } = await follow(start, '', productViewer);
    // A product's sale elements are the product's (docs/api.md): its default's change too.
    expect(new Set(changes.map((c) => c.RESOURCE))).toEqual(new Set(['product', 'pse']));
    expect((await get('/api/changes?resource=customer', { as: productViewer })).status).toBe(403);
    const creator = await keyWith({ product: ['CREATE'] });
    expect((await get('/api/changes', { as: creator })).status).toBe(403);
  });

  it('answers every page with a cursor, an empty one too, bound to its filter', async () => {
    const start = await cursorNow('&resource=product');
    const empty = await get(`/api/changes?resource=product&cursor=${encodeURIComponent(start)}`);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual([]);
    expect(empty.headers['x-next-cursor']).toBeTruthy();
    expect(empty.headers['x-total-count']).toBeUndefined();
    const elsewhere = await get(`/api/changes?resource=customer&cursor=${encodeURIComponent(start)}`);
    expect(elsewhere.status).toBe(400);
  });

  it('names the field of a bad query, and changes nothing', async () => {
    for (const [query, field] of [
      ['entity_id=3', 'entity_id'],
      ['resource=order', 'resource'],
      ['limit=501', 'limit'],
      ['limit=0', 'limit'],
      ['offset=5', 'offset'],
      ['resource=api-key&entity_id=3', 'entity_id'],
      ['resource=product&entity_id=ABC', 'entity_id'],
    ] as const) {
      const response = await get(`/api/changes?${query}`);
      expect(response.status, query).toBe(400);
      expect(
        response.body.errors.map((e: { field: string }) => e.field),
        query,
      ).toContain(field);
    }
  });

  it('takes up to 500 changes a page', async () => {
    const start = await cursorNow('&resource=customer');
    // Creates through the import's path would be faster; the API's is what clients use.
    for (let i = 0; i < 6; i++) await createCustomer();
    const page = await get(`/api/changes?resource=customer&limit=500&cursor=${encodeURIComponent(start)}`);
    expect(page.status).toBe(200);
    expect(page.body).toHaveLength(6);
  });

  it('places a backlog larger than one feed item (98 changes) in one read, each record in version order', async () => {
    const start = await cursorNow('&resource=product');
    const ids = [(await createProduct()).row.ID, (await createProduct()).row.ID, (await createProduct()).row.ID] as number[];
    for (let version = 2; version <= 51; version++) {
      await Promise.all(ids.map((id) => put(`/api/products/${id}`, { price: String(version) })));
    }
    const page = await get(`/api/changes?resource=product&limit=500&cursor=${encodeURIComponent(start)}`);
    expect(page.status).toBe(200);
    const rows = page.body as ChangeRow[];
    expect(rows).toHaveLength(153);
    for (const id of ids) expect(rows.filter((c) => c.ENTITY_ID === id).map((c) => c.VERSION)).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
  });

  it('answers 410 for a cursor older than the retention, and says how to start again', async () => {
    const kept = process.env.STORE_CHANGE_RETENTION_DAYS;
    // Three seconds: a TTL is in whole seconds, so a change may expire up to one second early, and
    // must still be there when it is first read, even on a loaded machine.
    process.env.STORE_CHANGE_RETENTION_DAYS = String(3 / 86_400);
    try {
      const start = await cursorNow();
      await createProduct();
      // The product and its default sale element.
      expect((await follow(start)).changes).toHaveLength(2);
      await new Promise((resolve) => setTimeout(resolve, 3_500));
      const gone = await get(`/api/changes?cursor=${encodeURIComponent(start)}`);
      expect(gone.status, gone.text).toBe(410);
      expect(gone.body.detail).toContain('read the lists again');
      expect(gone.body.detail).toContain('cursor=now');
    } finally {
      if (kept === undefined) delete process.env.STORE_CHANGE_RETENTION_DAYS;
      else process.env.STORE_CHANGE_RETENTION_DAYS = kept;
    }
  });

  it('shows every change committed during concurrent writes exactly once, each record in version order, to each of several clients following at once, in one order', async () => {
    const start = await cursorNow();
    const committed: string[] = [];
    const writer = async (w: number) => {
      const product = (await createProduct({ ref: uniqueRef(`W${w}`) })).row;
      committed.push(`product#${product.ID}#created#1`);
      for (let version = 2; version <= 6; version++) {
        const answer = await put(`/api/products/${product.ID}`, { price: `${w}.${version}` });
        if (answer.status === 204) committed.push(`product#${product.ID}#updated#${version}`);
      }
      const customer = (await createCustomer()).row;
      committed.push(`customer#${customer.ID}#created#1`);
      if ((await del(`/api/customers/${customer.ID}`)).status === 204) committed.push(`customer#${customer.ID}#deleted#1`);
    };
    // Three clients follow the feed while the writers write: each of their reads places what is pending.
    let writing = true;
    const walker = async (): Promise<ChangeRow[]> => {
      const seen: ChangeRow[] = [];
      let cursor = start;
      while (writing) {
        const page = await follow(cursor, '', undefined, 7);
        seen.push(...page.changes);
        cursor = page.cursor;
      }
      seen.push(...(await follow(cursor, '', undefined, 7)).changes);
      return seen;
    };
    const walkers = [walker(), walker(), walker()];
    await Promise.all(Array.from({ length: 4 }, (_, w) => writer(w + 1)));
    writing = false;
    const walks = await Promise.all(walkers);
    for (const walked of walks) {
      // The products' default sale elements change with them: their changes are followed in test/pse.test.ts.
      const seen = walked.filter((c) => c.RESOURCE !== 'pse');
      const keys = seen.map((c) => `${c.RESOURCE}#${c.ENTITY_ID}#${c.TYPE}#${c.VERSION}`);
      expect(new Set(keys).size, 'no change twice').toBe(keys.length);
      expect([...keys].sort()).toEqual([...committed].sort());
      for (const [record, versions] of Object.entries(Object.groupBy(seen, (c) => `${c.RESOURCE}#${c.ENTITY_ID}`))) {
        const order = versions!.map((c) => c.VERSION + (c.TYPE === 'deleted' ? 0.5 : 0));
        expect(order, record).toEqual([...order].sort((a, b) => a - b));
      }
    }
    // One feed: every client reads it in the same order.
    expect(walks[1]!.map((c) => c.ID)).toEqual(walks[0]!.map((c) => c.ID));
    expect(walks[2]!.map((c) => c.ID)).toEqual(walks[0]!.map((c) => c.ID));
  });
});

describe('the order of the feed (docs/changes-events-webhooks.md)', () => {
  /** One write, timed: when it was sent and answered, and the change it made. */
  interface Timed {
    sent: number;
    answered: number;
    change: string;
  }
  const nameOf = (resource: string, id: number, type: string, version: number) => `${resource} ${id} ${type} v${version}`;
  const named = (change: ChangeRow) => nameOf(change.RESOURCE, Number(change.ENTITY_ID), change.TYPE, change.VERSION);

  /** Creates a product, updates it, creates a tax rule, updates a product: what each write made, in the order answered. */
  async function writeInTurn(writes: number, record: (timed: Timed) => void): Promise<void> {
    const products: Array<{ id: number; version: number }> = [];
    for (let step = 0; step < writes; step++) {
      const sent = performance.now();
      let change: string;
      if (step % 4 === 0 || products.length === 0) {
        const row = (await createProduct()).row;
        products.push({ id: row.ID, version: 1 });
        change = nameOf('product', row.ID, 'created', 1);
      } else if (step % 4 === 2) {
        const row = await createTaxRule();
        change = nameOf('tax-rule', row.ID, 'created', 1);
      } else {
        const product = products[step % products.length]!;
        expect((await put(`/api/products/${product.id}`, { price: step })).status).toBe(204);
        change = nameOf('product', product.id, 'updated', ++product.version);
      }
      record({ sent, answered: performance.now(), change });
    }
  }

  it('gives writes made one after another oldest first, whatever their records and partitions, DATE never going back', async () => {
    const from = await cursorNow();
    const made: Timed[] = [];
    // Nobody reads meanwhile: every change waits, until they are in all eight marker partitions.
    const partitions = () => new Set(made.map(({ change }) => pendingPartition(change.split(' ')[0]!, change.split(' ')[1]!)));
    while (partitions().size < 8 && made.length < 200) await writeInTurn(8, (timed) => made.push(timed));
    expect(partitions().size).toBe(8);
    const { changes } = await follow(from);
    const mine = new Set(made.map(({ change }) => change));
    const feed = changes.filter((change) => mine.has(named(change)));
    expect(feed.map(named)).toEqual(made.map(({ change }) => change));
    const dates = feed.map((change) => change.DATE);
    expect(dates).toEqual([...dates].sort());
  });

  it('puts a write answered before another was sent first, for two writers interleaving', async () => {
    const from = await cursorNow();
    const made: Timed[] = [];
    await Promise.all([writeInTurn(16, (timed) => made.push(timed)), writeInTurn(16, (timed) => made.push(timed))]);
    const { changes } = await follow(from);
    const place = new Map(changes.map((change, index) => [named(change), index]));
    for (const a of made) {
      for (const b of made) if (a.answered < b.sent) expect(place.get(a.change)!, `${a.change} before ${b.change}`).toBeLessThan(place.get(b.change)!);
    }
  });
});

describe('the change feed, for an integrator', () => {
  it('keeps a copy of the products in step through GET /api/changes alone, deletions included', async () => {
    const start = await cursorNow('&resource=product');
    const copy = new Map<number, Record<string, unknown>>();
    const apply = (changes: ChangeRow[]) => {
      for (const change of changes) {
        const id = change.ENTITY_ID as number;
        if (change.TYPE === 'deleted') copy.delete(id);
        else {
          const record = { ...copy.get(id) };
          for (const f of change.CHANGES) record[f.locale ? `${f.field}:${f.locale}` : f.field] = f.after;
          copy.set(id, record);
        }
      }
    };
    const a = (await createProduct({ price: '1' })).row;
    const b = (await createProduct({ price: '2' })).row;
    let { changes, cursor } = await follow(start, '&resource=product');
    apply(changes);
    await put(`/api/products/${a.ID}`, { price: '5', visible: 0 });
    await del(`/api/products/${b.ID}`);
    ({ changes, cursor } = await follow(cursor, '&resource=product'));
    apply(changes);
    expect([...copy.keys()]).toEqual([a.ID]);
    const stored = (await get(`/api/products/${a.ID}`)).body[0];
    expect(copy.get(a.ID as number)).toMatchObject({ PRICE: stored.PRICE, VISIBLE: stored.VISIBLE, REF: stored.REF, 'TITLE:en_US': stored.TITLE });
    expect(cursor).toBeTruthy();
  });
});
