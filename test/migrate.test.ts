/**
 * A table written before one identity per text (locks keyed by the lower-case value), before
 * tax-rule summaries and before sharded counts, brought to the current form by `npm run migrate`
 * (lib/migrations/): no record becomes unreachable or a duplicate, no count changes.
 */
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../lib/db/client.js';
import { products } from '../lib/products/entity.js';
import { saleElements } from '../lib/products/sale-elements.js';
import { taxRules } from '../lib/tax-rules/entity.js';
import { pendingSteps, runMigrations } from '../lib/migrations/run.js';
import { MIGRATIONS } from '../lib/migrations/steps.js';
import { setUpTable } from '../lib/local/setup.js';

/** `npm run migrate -- --all`: every step, again. */
const migrate = () => runMigrations({ all: true });
import { countOf, idKey } from '../lib/db/counters.js';
import { SORT_FIRST, SORT_LAST } from '../lib/db/keys.js';
import { readItem } from '../lib/db/items.js';
import { productsUsing } from '../lib/tax-rules/entity.js';
import { DISPATCH_CURSOR, deliveryJobs, laneCursorKey, retryLane, webhooks } from '../lib/webhooks/entity.js';
import { del, get, post } from './support/api.js';
import { createCategory, createProduct, createTaxRule, customerInput, productInput, uniqueRef } from './support/fixtures.js';

// A subscription to a receiver on 127.0.0.1, as `npm start` allows.
process.env.STORE_WEBHOOKS_ALLOW_LOOPBACK = '1';

const formerly = (ref: string) => products.lockKey('ref', ref, (value) => value.toLowerCase());

/** Puts a product's ref lock back where the earlier version kept it. */
async function keepLockAsBefore(id: number, ref: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: products.lockKey('ref', ref) }));
  await db().send(new PutCommand({ TableName: tableName(), Item: { ...formerly(ref), ownerId: id } }));
}

describe('npm run migrate', () => {
  it('indexes the products stored before categories by their default category, counts them in, and lists those naming none', async () => {
    const category = await createCategory({ title: 'Before categories' });
    const [named, dangling] = [(await createProduct()).row.ID as number, (await createProduct()).row.ID as number];
    // As an earlier release stored them: any default category, uncounted, not in the category index.
    for (const [id, defaultCategory] of [
      [named, category.ID],
      [dangling, 987_654],
    ] as const) {
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: products.key(id),
          UpdateExpression: 'SET defaultCategory = :c REMOVE categoryCounted, gsi5pk, gsi5sk',
          ExpressionAttributeValues: { ':c': defaultCategory },
        }),
      );
    }
    expect((await get(`/api/products?category_default=${category.ID}`)).body).toEqual([]);
    const migration = await migrate();
    expect(migration.kept).toContain(`product ${dangling}: default category 987654 names no category`);
    expect((await get(`/api/products?category_default=${category.ID}`)).body.map((r: { ID: number }) => r.ID)).toEqual([named]);
    expect((await get(`/api/products/${dangling}`)).body[0].DEFAULT_CATEGORY).toBe(987_654);
    // Counted in: the category cannot go while the product names it.
    expect((await del(`/api/categories/${category.ID}`)).status).toBe(409);
    expect((await del(`/api/products/${named}`)).status).toBe(204);
    expect((await del(`/api/categories/${category.ID}`)).status).toBe(204);
  });

  it('gives each product stored before sale elements its default one, the product’s row unchanged', async () => {
    const { row } = await createProduct({ price: '7.5', weight: '2' });
    const [element] = (await get(`/api/pse/product/${row.ID}`)).body;
    // As an earlier release stored it: no sale element, no count of them, no note of its default.
    for (const key of [saleElements.key(element.ID), saleElements.lockKey('ref', row.REF), { pk: `PSE_OF#${row.ID}`, sk: 'S#00' }])
      await db().send(new DeleteCommand({ TableName: tableName(), Key: key }));
    await db().send(new UpdateCommand({ TableName: tableName(), Key: products.key(row.ID), UpdateExpression: 'REMOVE defaultPseId' }));
    expect((await get(`/api/pse/product/${row.ID}`)).body).toEqual([]);
    const migration = await migrate();
    expect(migration.counts['products given their default sale element']).toBeGreaterThanOrEqual(1);
    const [made] = (await get(`/api/pse/product/${row.ID}`)).body;
    expect(made).toMatchObject({ REF: row.REF, PRICE: '7.500000', WEIGHT: '2.000000', QUANTITY: '0.000000', IS_DEFAULT: 1 });
    expect((await get(`/api/products/${row.ID}`)).body[0]).toEqual(row);
    // Once: a second run makes none.
    expect((await migrate()).counts['products given their default sale element']).toBeUndefined();
    expect((await del(`/api/products/${row.ID}`)).status).toBe(204);
  });

  it('moves locks kept in the former form, so each record is found by every form of its value', async () => {
    const suffix = uniqueRef('');
    const ref = `Straße${suffix}`;
    const { row } = await createProduct({ ref });
    await keepLockAsBefore(row.ID, ref);
    // Before the migration, the new comparison does not find it.
    expect((await get(`/api/products?ref=${encodeURIComponent(`STRASSE${suffix}`)}`)).body).toEqual([]);

    const migration = await migrate();
    expect(migration.counts['locks moved to the current form']).toBeGreaterThanOrEqual(1);
    expect(migration.conflicts).toEqual([]);
    expect((await get(`/api/products?ref=${encodeURIComponent(`STRASSE${suffix}`)}`)).body.map((r: { ID: number }) => r.ID)).toEqual([row.ID]);
    expect((await post('/api/products', productInput({ ref: `strasse${suffix}` }))).status).toBe(409);
    // The former lock is gone: its value does not hold anything twice.
    expect((await get(`/api/products?ref=${encodeURIComponent(ref)}`)).body.map((r: { ID: number }) => r.ID)).toEqual([row.ID]);
    expect((await migrate()).counts['locks moved to the current form']).toBeUndefined();
  });

  it('reports two records that now read as one, and leaves both reachable and their own values unique', async () => {
    const suffix = uniqueRef('');
    // Stored by the earlier version as two refs: `strasse…` and `straße…` in lower case.
    const first = (await createProduct({ ref: `STRASSE${suffix}` })).row;
    await keepLockAsBefore(first.ID, `STRASSE${suffix}`);
    const twinId = (await createProduct({ ref: `other${suffix}` })).row.ID;
    // Make the second record hold `straße…` as the earlier version could have written it.
    const twin = (await products.read(twinId))!;
    await db().send(new DeleteCommand({ TableName: tableName(), Key: products.lockKey('ref', twin.ref) }));
    await db().send(new PutCommand({ TableName: tableName(), Item: products.toItem({ ...twin, ref: `straße${suffix}` }) }));
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...formerly(`straße${suffix}`), ownerId: twinId } }));

    const migration = await migrate();
    expect(migration.conflicts).toEqual([`product ${twinId}: a product already has this ref`]);
    expect((await get(`/api/products/${first.ID}`)).status).toBe(200);
    expect((await get(`/api/products/${twinId}`)).status).toBe(200);
    // The twin keeps its former lock: the same value in its own form is still taken.
    expect(
      await db()
        .send(new PutCommand({ TableName: tableName(), Item: { ...formerly(`straße${suffix}`), ownerId: 1 }, ConditionExpression: 'attribute_not_exists(pk)' }))
        .catch((e: Error) => e.name),
    ).toBe('ConditionalCheckFailedException');
  });

  it('writes the summaries of tax rules stored before lists read them', async () => {
    const rule = await createTaxRule({ i18n: [{ locale: 'en_US', title: 'Zzz before summaries' }] });
    const stored = (await taxRules.read(rule.ID))!;
    const { pk, sk } = taxRules.summarize(stored)[0]!.item.Put!.Item as { pk: string; sk: string };
    await db().send(new DeleteCommand({ TableName: tableName(), Key: { pk, sk } }));
    expect((await get('/api/tax-rules?limit=100')).body.map((r: { ID: number }) => r.ID)).not.toContain(rule.ID);
    expect((await migrate()).counts['tax-rule summaries written']).toBe(1);
    expect((await get('/api/tax-rules?limit=100&order=alpha_reverse')).body[0].ID).toBe(rule.ID);
  });

  it('moves counts kept on one item by earlier versions onto shards: totals, ids and rules in use unchanged', async () => {
    const rule = (await createTaxRule()).ID as number;
    const used = [(await createProduct({ tax_rule: rule })).row.ID, (await createProduct({ tax_rule: rule })).row.ID];
    const total = Number((await get('/api/products')).headers['x-total-count']);
    const shardsOf = async (partition: string) =>
      (await db().send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': partition } }))).Items ?? [];
    const deleteAll = async (items: Record<string, unknown>[]) => {
      for (const { pk, sk } of items) if (String(sk).startsWith('S#')) await db().send(new DeleteCommand({ TableName: tableName(), Key: { pk, sk } }));
    };
    // As an earlier version kept them: the count on the id item and a copy, both at the ends of the
    // counted lists; the rule's products counted on the rule itself.
    const counter = products.counter!;
    await deleteAll(await shardsOf(countOf(counter).partition));
    const placed = (end: string) => ({ gsi1pk: 'PRODUCTS', gsi1sk: end, gsi2pk: 'PRODUCTS', gsi2sk: end, count: total });
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: idKey(counter),
        UpdateExpression: 'SET gsi1pk = :pk, gsi1sk = :end, gsi2pk = :pk, gsi2sk = :end, #count = :count',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':pk': 'PRODUCTS', ':end': SORT_FIRST, ':count': total },
      }),
    );
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...idKey(counter), sk: 'TAIL', ...placed(SORT_LAST) } }));
    await deleteAll(await shardsOf(productsUsing(rule).partition));
    await db().send(new UpdateCommand({ TableName: tableName(), Key: taxRules.key(rule), UpdateExpression: 'SET productCount = :two', ExpressionAttributeValues: { ':two': 2 } }));

    const migration = await migrate();
    expect(migration.counts['counts moved onto shards']).toBeGreaterThanOrEqual(2);
    const page = await get('/api/products?limit=100');
    expect(page.status).toBe(200);
    expect(Number(page.headers['x-total-count'])).toBe(total);
    expect(page.body.length).toBe(Math.min(total, 100));
    expect(await readItem({ ...idKey(counter), sk: 'TAIL' })).toBeUndefined();
    expect((await readItem(taxRules.key(rule)))?.productCount).toBeUndefined();
    // Ids go on after the last one handed out.
    expect((await createProduct()).row.ID).toBeGreaterThan(Math.max(...used));
    expect((await del(`/api/tax-rules/${rule}`)).body.detail).toContain('used by 2 product(s)');
    for (const id of used) expect((await del(`/api/products/${id}`)).status).toBe(204);
    expect((await del(`/api/tax-rules/${rule}`)).status).toBe(204);
    expect((await migrate()).counts['counts moved onto shards']).toBeUndefined();
  });

  it("starts each webhook's lane where the one dispatcher of an earlier version was, and moves its queued jobs into the lane", async () => {
    const hook = await post('/api/webhooks', { url: 'http://127.0.0.1:9/old', events: ['product.*'] });
    expect(hook.status).toBe(201);
    const id = hook.body[0].ID as number;
    const start = (await webhooks.read(id))!.start;
    const dispatched = [start[0] + 3, 0];
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...DISPATCH_CURSOR, position: dispatched } }));
    // A job as an earlier version queued it: in one of four shared partitions of GSI3.
    const job = {
      pk: `WEBHOOK#${id}`,
      sk: 'JOB#old-change',
      webhookId: id,
      changeId: 'old-change',
      changeKey: { pk: 'X', sk: 'Y' },
      attempt: 2,
      dueAt: 1_000,
      gsi3pk: 'WEBHOOK_DUE#2',
      gsi3sk: `000000000001000#WEBHOOK#${id}#JOB#old-change`,
    };
    await db().send(new PutCommand({ TableName: tableName(), Item: job }));

    const jobsRelaned = (await migrate()).counts['webhook jobs moved into their lanes'];
    expect(jobsRelaned).toBe(1);
    expect((await readItem(laneCursorKey(id)))?.position).toEqual(dispatched);
    expect((await deliveryJobs.due(retryLane(id), Date.now(), 10)).map((due) => [due.changeId, due.attempt, due.dueAt])).toEqual([['old-change', 2, 1_000]]);
    expect(await deliveryJobs.due('2', Date.now(), 10)).toEqual([]);
  });

  it('writes the keys of the indexes of updates and creations (GSI7, GSI8) on the products and categories stored before them, which the table then lists', async () => {
    const [product, category] = [(await createProduct()).row.ID as number, (await createCategory({ title: 'Before GSI7' })).ID];
    // As the releases before stored them: no keys of the new indexes.
    for (const key of [products.key(product), { pk: `CATEGORY#${category}`, sk: 'CATEGORY' }]) {
      await db().send(new UpdateCommand({ TableName: tableName(), Key: key, UpdateExpression: 'REMOVE gsi7pk, gsi7sk, gsi8pk, gsi8sk' }));
    }
    const listed = async (path: string) => ((await get(`${path}&limit=100`)).body as Array<{ ID: number }>).map((row) => row.ID);
    expect(await listed('/api/products?order=updated')).not.toContain(product);
    expect(await listed('/api/products?order=created')).not.toContain(product);
    expect(await listed('/api/categories?order=created')).not.toContain(category);
    const before = (await get(`/api/products/${product}`)).body[0];
    await migrate();
    expect(await listed('/api/products?order=updated')).toContain(product);
    expect(await listed('/api/products?order=created')).toContain(product);
    expect(await listed('/api/categories?order=created')).toContain(category);
    // Its keys, not the product: the same record, version and dates.
    expect((await get(`/api/products/${product}`)).body[0]).toEqual(before);
  });

  it('lists the products and customers stored before their lists were sharded again, each in its shard, and every list finds them', async () => {
    const product = (await createProduct({ visible: 1 })).row.ID as number;
    const customer = (await post('/api/customers', customerInput())).body[0].ID as number;
    // As the releases before stored them: every product and customer under one partition of each index.
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: products.key(product),
        UpdateExpression: 'SET gsi1pk = :all, gsi2pk = :all, gsi3pk = :visible, gsi4pk = :visible, gsi5pk = :category, gsi6pk = :all, gsi7pk = :all, gsi8pk = :all',
        ExpressionAttributeValues: { ':all': 'PRODUCTS', ':visible': 'PRODUCTS#VISIBLE#1', ':category': 'PRODUCTS#CATEGORY#0' },
      }),
    );
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: `CUSTOMER#${customer}`, sk: 'CUSTOMER' },
        UpdateExpression: 'SET gsi1pk = :all, gsi2pk = :all, gsi6pk = :all',
        ExpressionAttributeValues: { ':all': 'CUSTOMERS' },
      }),
    );
    const listed = async (path: string) => ((await get(`${path}${path.includes('?') ? '&' : '?'}limit=100`)).body as Array<{ ID: number }>).map((row) => row.ID);
    expect(await listed('/api/products?order=id_reverse')).not.toContain(product);
    expect(await listed('/api/products?category_default=0&order=id_reverse')).not.toContain(product);
    expect(await listed('/api/customers?order=id_reverse')).not.toContain(customer);
    const before = (await get(`/api/products/${product}`)).body[0];
    await migrate();
    for (const path of [
      '/api/products?order=id_reverse',
      '/api/products?order=ref',
      '/api/products?visible=1&order=id_reverse',
      '/api/products?category_default=0&order=id_reverse',
      '/api/products?order=min_price',
      '/api/products?order=updated_reverse',
      '/api/products?order=created_reverse',
    ]) {
      expect(await listed(path), path).toContain(product);
    }
    for (const path of ['/api/customers?order=id_reverse', '/api/customers?order=lastname', '/api/customers?order=registration_date_reverse']) expect(await listed(path), path).toContain(customer);
    expect((await get(`/api/products/${product}`)).body[0]).toEqual(before);
  });
});

describe("a table's setup (npm start, the tools, each test file)", () => {
  it('records every migration as run on the table it creates, and runs those an existing table has not run', async () => {
    // This file's table was made by its setup (test/support/table-per-file.ts): nothing of it to migrate.
    expect(await pendingSteps(MIGRATIONS)).toEqual([]);
    // An existing table whose products were stored before sale elements, the step not run yet.
    const { row } = await createProduct({ price: '3' });
    const [element] = (await get(`/api/pse/product/${row.ID}`)).body;
    for (const key of [saleElements.key(element.ID), saleElements.lockKey('ref', row.REF), { pk: `PSE_OF#${row.ID}`, sk: 'S#00' }])
      await db().send(new DeleteCommand({ TableName: tableName(), Key: key }));
    await db().send(new UpdateCommand({ TableName: tableName(), Key: products.key(row.ID), UpdateExpression: 'REMOVE defaultPseId' }));
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { pk: 'SETUP', sk: 'MIGRATIONS' },
        UpdateExpression: 'DELETE ran :step',
        ExpressionAttributeValues: { ':step': new Set(['010-default-sale-elements']) },
      }),
    );
    expect((await pendingSteps(MIGRATIONS)).map((step) => step.id)).toEqual(['010-default-sale-elements']);
    await setUpTable();
    expect(await pendingSteps(MIGRATIONS)).toEqual([]);
    expect((await get(`/api/pse/product/${row.ID}`)).body).toMatchObject([{ REF: row.REF, PRICE: '3.000000', IS_DEFAULT: 1 }]);
  });
});
