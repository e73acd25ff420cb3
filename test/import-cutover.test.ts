/**
 * README "Cutting over, step by step", run as written against a real MariaDB: the commands are read
 * from the README, in order, and run between what a shop does meanwhile (Thelia keeps taking edits,
 * clients try the API), until the last run says the table holds the store (exit 0).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, put, tableSnapshot } from './support/api.js';
import { runImport } from './support/import-cli.js';
import { startMariaDb, type MariaDb } from './support/mariadb.js';
import { createTheliaStore, phpBcrypt, theliaAddress, theliaCustomer } from './support/thelia-store.js';
import { insertRows } from './support/thelia-tables.js';
import { readDocs } from './support/docs.js';

/** The `npm run import` commands of the README's cut-over steps, as argument lists, `$THELIA` left to fill in. */
function cutOverCommands(): string[][] {
  const readme = readDocs();
  const steps = readme.slice(readme.indexOf('### Cutting over, step by step'), readme.indexOf('**What `--update` never does**'));
  return [...steps.matchAll(/^\s*npm run import -- (.+)$/gm)].map((match) => match[1]!.split(/\s+/).map((arg) => arg.replace(/^"(.*)"$/, '$1')));
}

/** A command's arguments for the test's store; the test reads the report its own --report writes. */
function withStore(args: string[], url: string): string[] {
  const reportAt = args.indexOf('--report');
  const own = reportAt === -1 ? args : [...args.slice(0, reportAt), ...args.slice(reportAt + 2)];
  return own.map((arg) => (arg === '$THELIA' ? url : arg));
}

let mariadb: MariaDb;
let url: string;
const sql = (statement: string) => mariadb.admin.query(statement);

beforeAll(async () => {
  mariadb = await startMariaDb();
  url = await createTheliaStore(mariadb, 'shop_cutover');
  await sql('USE `shop_cutover`');
  // A store the API can hold whole: the rows made to be skipped are not in this one.
  await sql('DELETE FROM tax_rule WHERE id >= 4');
  await sql('DELETE FROM category WHERE id IN (9, 10)');
  await sql('DELETE FROM product WHERE id IN (20, 21, 23, 24, 25, 26, 27, 28, 29, 30)');
  await sql('DELETE FROM customer WHERE id IN (2, 3, 4, 5, 6, 7, 8, 9, 12)');
  await sql('DELETE FROM attribute_av WHERE id = 7');
  await sql('DELETE FROM product_sale_elements WHERE id IN (103, 104, 105, 106)');
}, 180_000);

afterAll(() => mariadb?.stop());

describe('README: cutting over from Thelia, step by step', () => {
  it('checks, imports, brings the API up to date while Thelia runs, and ends with the table holding the store (exit 0)', async () => {
    const [check, first, update, last, ...more] = cutOverCommands();
    expect(more).toEqual([]);
    expect([check, first, update, last].map((args) => args!.filter((arg) => arg.startsWith('--') && arg !== '--from' && arg !== '--report'))).toEqual([
      ['--dry-run'],
      [],
      ['--update'],
      ['--update', '--delete-missing'],
    ]);

    // 1. Check: nothing written, nothing to fix in this store.
    const before = await tableSnapshot();
    const checked = await runImport(withStore(check!, url));
    expect(checked.status, checked.stdout).toBe(0);
    expect(checked.report!.records.customer.imported).toEqual([1, 10, 50]);
    expect(await tableSnapshot()).toEqual(before);

    // 2. Import once.
    const imported = await runImport(withStore(first!, url));
    expect(imported.status, imported.stdout).toBe(0);
    expect(imported.report!.records.product.imported).toEqual([1, 10, 11, 12, 22, 40]);

    // Meanwhile, clients try the API and Thelia keeps taking edits: one customer is edited on both sides.
    expect((await put('/api/customers', { id: 10, city: 'Liège', zipcode: '4000', country: 20 })).status).toBe(201);
    expect((await put('/api/customers', { id: 50, lastname: 'Durand' })).status).toBe(201);
    await sql("UPDATE customer SET lastname = 'Dupont', updated_at = '2024-05-05 05:05:05' WHERE id = 50");
    await sql("UPDATE product_i18n SET title = 'Desk lamp' WHERE id = 40 AND locale = 'en_US'");
    await sql("UPDATE product SET updated_at = '2024-05-05 05:05:05' WHERE id = 40");
    await insertRows(mariadb.admin, 'customer', [theliaCustomer(60, 'new@example.com', { password: phpBcrypt('thelia-pw-60'), created_at: '2024-05-01 00:00:00' })]);
    await insertRows(mariadb.admin, 'address', [theliaAddress(60, 60, 1)]);
    await sql('DELETE FROM product WHERE id = 11');

    // 3. Bring it up to date: Thelia's edits and new rows applied, the conflict and the missing product listed.
    const updated = await runImport(withStore(update!, url));
    expect(updated.status).toBe(2);
    expect(updated.report!.records.product).toMatchObject({ updated: [40], missing: [11] });
    expect(updated.report!.records.customer).toMatchObject({ imported: [60], kept: [10], conflict: [50] });
    expect((await get('/api/products/40?lang=en_US')).body[0]).toMatchObject({ TITLE: 'Desk lamp' });
    // The conflict is settled by making both sides agree: Thelia's name, put through the API.
    expect((await put('/api/customers', { id: 50, lastname: 'Dupont' })).status).toBe(201);

    // 4. Thelia stops taking writes; the last run deletes what Thelia deleted, and the table holds the store.
    const final = await runImport(withStore(last!, url));
    expect(final.status, final.stdout).toBe(0);
    expect(final.report!.records.product).toMatchObject({ deleted: [11], missing: [] });
    expect(final.report!.records.customer).toMatchObject({ unchanged: [1, 50, 60], kept: [10], conflict: [] });
    expect((await get('/api/products/11')).status).toBe(404);

    // 5. Clients use the API: a customer added in Thelia during the trial logs in with the password she had.
    expect((await post('/api/customers/checkLogin', { email: 'new@example.com', password: 'thelia-pw-60' })).status).toBe(200);
  }, 180_000);
});
