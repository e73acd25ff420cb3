/**
 * `npm run import -- --update` (docs/moving-from-thelia.md's last paragraph): after a first import, Thelia keeps
 * taking edits while the API is tried. An update run applies the source's edits to the records
 * nobody changed through the API since, imports the source's new rows, leaves the API's edits alone,
 * lists the records changed on both sides as conflicts and those gone from the source as missing,
 * deletes the untouched missing ones only with --delete-missing; run again, it changes nothing.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '../lib/db/client.js';
import { readItem } from '../lib/db/items.js';
import { products } from '../lib/products/entity.js';
import { del, get, put, tableSnapshot } from './support/api.js';
import { cursorNow, followChanges, type ChangeRow } from './support/changes.js';
import { createProduct } from './support/fixtures.js';
import { runImport } from './support/import-cli.js';
import { startMariaDb, type MariaDb } from './support/mariadb.js';
import { createTheliaStore, phpBcrypt, theliaAddress, theliaCustomer } from './support/thelia-store.js';
import { insertRows } from './support/thelia-tables.js';

let mariadb: MariaDb;
let storeUrl: string;
/** A statement on the store's database, as a Thelia back office would make it. */
const sql = (statement: string) => mariadb.admin.query(statement);

/** A customer added to the source, with a default address. */
async function addCustomer(id: number, email: string, extra: Record<string, unknown> = {}): Promise<void> {
  await insertRows(mariadb.admin, 'customer', [theliaCustomer(id, email, { password: phpBcrypt('new-customer-pw'), ...extra })]);
  await insertRows(mariadb.admin, 'address', [theliaAddress(id, id, 1)]);
}

const skippedProducts = [20, 21, 23, 24, 25, 26, 27, 28, 29, 30];
const skippedCustomers = [2, 3, 4, 5, 6, 7, 8, 9, 12];
const summary = (changes: ChangeRow[]) => changes.map((c) => `${c.RESOURCE} ${c.ENTITY_ID} ${c.TYPE} v${c.VERSION} by ${c.API_KEY}`).sort();

beforeAll(async () => {
  mariadb = await startMariaDb();
  storeUrl = await createTheliaStore(mariadb, 'shop_update');
  await mariadb.admin.query('USE `shop_update`');
  await addCustomer(61, 'gone@example.com');
  expect((await runImport(['--from', storeUrl])).status).toBe(2);
}, 180_000);

afterAll(() => mariadb?.stop());

describe('npm run import -- --update', () => {
  let since: string;

  it("applies the source's edits to untouched records, imports its new rows, keeps the API's edits, and lists conflicts and missing records", async () => {
    // In Thelia: rule 3, product 40 and customer 1 edited; customer 60 added; product 12 and customer 61 deleted.
    await sql("UPDATE tax_rule_i18n SET title = 'Eco tax, then VAT' WHERE id = 3 AND locale = 'en_US'");
    await sql("UPDATE tax_rule SET updated_at = '2024-03-03 03:03:03' WHERE id = 3");
    await sql("UPDATE product_i18n SET title = 'Desk lamp' WHERE id = 40 AND locale = 'en_US'");
    await sql("UPDATE product SET updated_at = '2024-03-03 03:03:03' WHERE id = 40");
    await sql("UPDATE customer SET lastname = 'Smith-Jones', updated_at = '2024-04-04 04:04:04' WHERE id = 1");
    await addCustomer(60, 'new@example.com', { lastname: ' Newman ', created_at: '2024-04-01 00:00:00' });
    await sql('DELETE FROM product WHERE id = 12');
    await sql('DELETE FROM customer WHERE id = 61');
    // Sale elements: 101's stock taken in Thelia; 102's there and through the API; 107 new; product 40's price (its default's) raised.
    await sql("UPDATE product_sale_elements SET quantity = 1, updated_at = '2024-03-03 03:03:03' WHERE id = 101");
    await sql("UPDATE product_sale_elements SET quantity = 8, updated_at = '2024-03-03 03:03:03' WHERE id = 102");
    expect((await put('/api/pse/102', { pse: [{ quantity: 5 }] })).status).toBe(201);
    await sql("UPDATE product_price SET price = '36' WHERE product_sale_elements_id = 400");
    await sql("UPDATE product_sale_elements SET updated_at = '2024-03-03 03:03:03' WHERE id = 400");
    await insertRows(mariadb.admin, 'product_sale_elements', [{ id: 107, product_id: 40, ref: 'LAMP-XL', quantity: 4, is_default: 0, created_at: '2024-03-01 00:00:00' }]);
    await insertRows(mariadb.admin, 'product_price', [{ product_sale_elements_id: 107, currency_id: 1, price: '45', promo_price: '0', from_default_currency: 0 }]);
    // Customer 50: changed in Thelia and through the API. Customers 10 and 61: through the API only.
    await sql("UPDATE customer SET firstname = 'Lasting', updated_at = '2024-05-05 05:05:05' WHERE id = 50");
    expect((await put('/api/customers', { id: 10, city: 'Liège', zipcode: '4000' })).status).toBe(201);
    expect((await put('/api/customers', { id: 50, city: 'Nice', zipcode: '06000', country: 64 })).status).toBe(201);
    expect((await put('/api/customers', { id: 61, lastname: 'Still here' })).status).toBe(201);
    since = await cursorNow();

    const run = await runImport(['--from', storeUrl, '--update']);
    expect(run.status, run.stderr).toBe(2);
    expect(run.report!.records['tax rule']).toMatchObject({ updated: [3], unchanged: [1, 2], missing: [], deleted: [] });
    expect(run.report!.records.product).toEqual({
      imported: [],
      updated: [40],
      unchanged: [1, 10, 11, 22],
      kept: [],
      conflict: [],
      missing: [12],
      deleted: [],
      skipped: skippedProducts,
    });
    expect(run.report!.records.customer).toEqual({ imported: [60], updated: [1], unchanged: [], kept: [10], conflict: [50], missing: [61], deleted: [], skipped: skippedCustomers });
    expect(run.report!.counts.customer).toEqual({ read: 13, imported: 1, updated: 1, unchanged: 0, kept: 1, conflict: 1, missing: 1, deleted: 0, skipped: 9 });
    // Product 40's default followed its price in the product's write and stayed the import's: the sale elements' run finds it unchanged.
    expect(run.report!.records['sale element']).toMatchObject({ imported: [107], updated: [101], unchanged: [10, 100, 110, 220, 400], kept: [], conflict: [102], missing: [] });
    expect(run.report!.conflicts).toEqual([
      { kind: 'sale element', id: 102, sourceUpdatedAt: '2024-03-03T03:03:03.000Z', tableUpdatedAt: expect.stringMatching(/^20\d\d-/) },
      { kind: 'customer', id: 50, sourceUpdatedAt: '2024-05-05T05:05:05.000Z', tableUpdatedAt: expect.stringMatching(/^20\d\d-/) },
    ]);
    expect(run.report!.missing).toEqual([
      { kind: 'customer', id: 61, reason: 'not in Thelia any more, and changed through the API since the import: left as it is' },
      { kind: 'product', id: 12, reason: 'not in Thelia any more: --delete-missing deletes it' },
    ]);
    // The values the table holds as the import changed them: customer 60's new one, customer 1's as before.
    expect(run.report!.normalized.filter((value) => value.kind === 'customer').map((value) => [value.id, value.table, value.column, value.what])).toEqual([
      [1, 'address', 'city', 'trimmed'],
      [1, 'customer', 'lang_id', "empty: the store's default language"],
      [60, 'customer', 'lastname', 'trimmed'],
    ]);
    expect(run.stdout).toContain('customer 50: Thelia updated_at 2024-05-05T05:05:05.000Z');
    expect(run.stdout).toContain('product 12: not in Thelia any more: --delete-missing deletes it');

    expect((await get('/api/tax-rules/3?lang=en_US')).body[0]).toMatchObject({ TITLE: 'Eco tax, then VAT', VERSION: 2 });
    expect((await get('/api/products/40?lang=en_US')).body[0]).toMatchObject({ TITLE: 'Desk lamp', VERSION: 2 });
    expect((await get('/api/products/12')).status).toBe(200);
    expect((await get('/api/customers/1')).body[0]).toMatchObject({ LASTNAME: 'Smith-Jones', VERSION: 2 });
    expect((await get('/api/customers/10')).body[0]).toMatchObject({ CITY: 'Liège', VERSION: 2 });
    expect((await get('/api/customers/50')).body[0]).toMatchObject({ FIRSTNAME: 'Jérôme', CITY: 'Nice' });
    expect((await get('/api/customers/60')).body[0]).toMatchObject({ LASTNAME: 'Newman', VERSION: 1 });
    // Each update and the new customer are changes made by the import, of exactly what changed.
    const { changes } = await followChanges(since);
    expect(summary(changes)).toEqual([
      'customer 1 updated v2 by import',
      'customer 60 created v1 by import',
      'product 40 updated v2 by import',
      'pse 101 updated v2 by import',
      'pse 107 created v1 by import',
      'pse 400 updated v3 by import',
      'tax-rule 3 updated v2 by import',
    ]);
    const changeOf = (resource: string, id: number) => changes.find((c) => c.RESOURCE === resource && c.ENTITY_ID === id)!.CHANGES;
    expect(changeOf('customer', 1)).toEqual([{ field: 'LASTNAME', locale: null, before: 'Smith', after: 'Smith-Jones' }]);
    expect(changeOf('product', 40)).toEqual([
      { field: 'TITLE', locale: 'en_US', before: 'Lamp', after: 'Desk lamp' },
      { field: 'PRICE', locale: null, before: '35.250000', after: '36.000000' },
    ]);
    expect(changeOf('pse', 101)).toEqual([{ field: 'QUANTITY', locale: null, before: '2.500000', after: '1.000000' }]);
    expect((await get('/api/pse/102')).body[0]).toMatchObject({ QUANTITY: '5.000000' });
    expect((await get('/api/pse/product/40')).body.map((row: { REF: string; PRICE: string }) => [row.REF, row.PRICE])).toEqual([
      ['LAMP-XL', '45.000000'],
      ['PSE-400', '36.000000'],
    ]);
    expect((await get('/api/products/40')).body[0]).toMatchObject({ UPDATE_DATE: '2024-03-03T03:03:03.000Z' });
  }, 180_000);

  it("reorders a sale element's values at once when it moves their attribute: this process's cached positions are not trusted past the move", async () => {
    // Sale element 102 is made of value 2 (attribute 1, Size, position 1) and value 6 (attribute 4, position 2).
    expect((await get('/api/pse/102')).body[0].ATTRIBUTE_AVS).toEqual([2, 6]);
    await sql("UPDATE attribute SET position = 0, updated_at = '2024-04-04 04:04:04' WHERE id = 4");
    const run = await runImport(['--from', storeUrl, '--update']);
    expect(run.report!.records.attribute).toMatchObject({ updated: [4] });
    expect((await get('/api/pse/102')).body[0].ATTRIBUTE_AVS).toEqual([6, 2]);
  }, 180_000);

  it('with --delete-missing, deletes the missing records nobody changed since, and only those (a dry run says so first)', async () => {
    const before = await tableSnapshot();
    const dry = await runImport(['--from', storeUrl, '--update', '--delete-missing', '--dry-run']);
    expect(dry.report!.records.product.deleted).toEqual([12]);
    expect(dry.stdout).toMatch(/products\s+to delete: 12/);
    expect(await tableSnapshot()).toEqual(before);

    const cursor = await cursorNow();
    const run = await runImport(['--from', storeUrl, '--update', '--delete-missing']);
    expect(run.status, run.stderr).toBe(2);
    expect(run.report!.records.product).toMatchObject({ updated: [], missing: [], deleted: [12] });
    expect(run.report!.records.customer).toMatchObject({ imported: [], updated: [], missing: [61], deleted: [] });
    expect(run.report!.missing).toEqual([{ kind: 'customer', id: 61, reason: 'not in Thelia any more, and changed through the API since the import: left as it is' }]);
    expect((await get('/api/products/12')).status).toBe(404);
    expect((await get('/api/customers/61')).body[0]).toMatchObject({ LASTNAME: 'Still here' });
    // With its default sale element (docs/api.md), in the same write.
    expect(summary((await followChanges(cursor)).changes).sort()).toEqual(['product 12 deleted v1 by import', 'pse 120 deleted v2 by import']);
    // Deleted as the API deletes: the list's total no longer counts it.
    expect((await get('/api/products')).headers['x-total-count']).toBe('5');
  }, 180_000);

  it('changes nothing when the same run is made again', async () => {
    const cursor = await cursorNow();
    const before = await tableSnapshot();
    const again = await runImport(['--from', storeUrl, '--update', '--delete-missing']);
    expect(again.report!.counts.customer).toEqual({ read: 13, imported: 0, updated: 0, unchanged: 2, kept: 1, conflict: 1, missing: 1, deleted: 0, skipped: 9 });
    expect(again.report!.counts.product).toMatchObject({ imported: 0, updated: 0, unchanged: 5, missing: 0, deleted: 0 });
    expect(again.report!.counts['tax rule']).toMatchObject({ imported: 0, updated: 0, unchanged: 3 });
    expect((await followChanges(cursor)).changes).toEqual([]);
    expect(await tableSnapshot()).toEqual(before);
  }, 180_000);

  it("without --update, leaves the source's edits unapplied, lists no conflict, and names them as not applied", async () => {
    await sql("UPDATE customer SET lastname = 'Smith-Brown', updated_at = '2024-06-06 06:06:06' WHERE id = 1");
    const run = await runImport(['--from', storeUrl]);
    // Customers 1 (the source), 10 (the API) and 50 (both) are all left as they are.
    expect(run.report!.records.customer).toMatchObject({ updated: [], kept: [1, 10, 50], conflict: [] });
    expect((await get('/api/customers/1')).body[0]).toMatchObject({ LASTNAME: 'Smith-Jones' });
    // Those changed in Thelia are named, and the table does not hold the source as it is: exit 2.
    expect(run.report!.notApplied.filter((r) => r.kind === 'customer').map((r) => [r.id, r.sourceUpdatedAt])).toEqual([
      [1, '2024-06-06T06:06:06.000Z'],
      [50, '2024-05-05T05:05:05.000Z'],
    ]);
    expect(run.stdout).toContain('Changed in Thelia since the import, not applied');
    expect(run.status).toBe(2);
  }, 180_000);

  it('updates a record imported before the import marked its records, while it is still at version 1', async () => {
    // Product 10 as an import made before this release left it: no mark of the import's version or date.
    await db().send(new UpdateCommand({ TableName: tableName(), Key: products.key(10), UpdateExpression: 'REMOVE importedVersion, sourceUpdatedAt' }));
    await sql("UPDATE product_i18n SET title = 'Armchair' WHERE id = 10 AND locale = 'en_US'");
    await sql("UPDATE product SET updated_at = '2024-07-07 07:07:07' WHERE id = 10");

    const run = await runImport(['--from', storeUrl, '--update']);
    expect(run.report!.records.product).toMatchObject({ updated: [10], kept: [] });
    expect((await get('/api/products/10?lang=en_US')).body[0]).toMatchObject({ TITLE: 'Armchair', VERSION: 2 });
    expect(await readItem(products.key(10))).toMatchObject({ importedVersion: 2, sourceUpdatedAt: '2024-07-07T07:07:07.000Z' });
  }, 180_000);

  it("moves the store's default rule when Thelia moved it, and finds both rules unchanged after", async () => {
    await sql("UPDATE tax_rule SET is_default = 0, updated_at = '2024-08-08 08:08:08' WHERE id = 1");
    await sql("UPDATE tax_rule SET is_default = 1, updated_at = '2024-08-08 08:08:08' WHERE id = 3");
    const run = await runImport(['--from', storeUrl, '--update']);
    expect(run.report!.records['tax rule']).toMatchObject({ updated: [1, 3], conflict: [], kept: [] });
    const rules = (await get('/api/tax-rules')).body.map((row: { ID: number; IS_DEFAULT: number }) => [row.ID, row.IS_DEFAULT]);
    expect(rules).toEqual([
      [1, 0],
      [2, 0],
      [3, 1],
    ]);

    const again = await runImport(['--from', storeUrl, '--update']);
    expect(again.report!.records['tax rule']).toMatchObject({ updated: [], unchanged: [1, 2, 3] });
  }, 180_000);

  it('deletes a missing rule once its missing products are deleted, and keeps it while a product of the API uses it (the dry run says the same)', async () => {
    await sql('DELETE FROM tax_rule WHERE id = 3');
    await sql('DELETE FROM product WHERE id IN (10, 40)');
    const apiProduct = (await createProduct({ tax_rule: 3 })).row.ID;

    const inUse = 'not in Thelia any more, and tax rule 3 is used by 1 product(s): left as it is';
    const dry = await runImport(['--from', storeUrl, '--update', '--delete-missing', '--dry-run']);
    expect(dry.report!.records.product.deleted).toEqual([10, 40]);
    expect(dry.report!.missing).toContainEqual({ kind: 'tax rule', id: 3, reason: 'not in Thelia any more, and used by 1 product(s): left as it is' });
    const run = await runImport(['--from', storeUrl, '--update', '--delete-missing']);
    expect(run.report!.records.product.deleted).toEqual([10, 40]);
    // Without rule 3, Thelia's other rule flagged default (8, skipped so far as a second default) is
    // the store's default: imported as such, it takes the flag from rule 3, which stays the import's.
    expect(run.report!.records['tax rule'].imported).toEqual([8]);
    expect(run.report!.missing).toContainEqual({ kind: 'tax rule', id: 3, reason: inUse });

    expect((await del(`/api/products/${apiProduct}`)).status).toBe(204);
    const dryAgain = await runImport(['--from', storeUrl, '--update', '--delete-missing', '--dry-run']);
    expect(dryAgain.report!.records['tax rule'].deleted).toEqual([3]);
    const last = await runImport(['--from', storeUrl, '--update', '--delete-missing']);
    expect(last.report!.records['tax rule'].deleted).toEqual([3]);
    expect((await get('/api/tax-rules/3')).status).toBe(404);
  }, 180_000);

  it('says in a dry run what the run then does with a record deleted through the API since it was imported: skipped, its history kept', async () => {
    expect((await del('/api/customers/60')).status).toBe(204);
    const dry = await runImport(['--from', storeUrl, '--update', '--dry-run']);
    const run = await runImport(['--from', storeUrl, '--update']);
    const skippedOf = (report: typeof dry.report) => report!.skipped.find((record) => record.kind === 'customer' && record.id === 60);
    expect(skippedOf(run.report)).toMatchObject({
      problems: [{ field: 'customer.id', message: 'customer 60 was deleted since it was made, and its history is kept: it is not made again under its id' }],
    });
    expect(skippedOf(dry.report)).toEqual(skippedOf(run.report));
    expect(dry.report!.records.customer).toEqual(run.report!.records.customer);
  }, 180_000);
});
