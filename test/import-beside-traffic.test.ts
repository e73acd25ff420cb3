/**
 * A cut-over's `npm run import -- --update` while the back office is in use, on DynamoDB's own
 * transaction conflicts (the conflict-faithful proxy in front of DynamoDB Local, for the import's
 * process and this file's API alike): every record of the source is applied, no request of the API
 * answers a 5xx or a 409, and a run again changes nothing.
 */
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { startConflictProxy } from '../lib/local/conflict-proxy.js';
import { get, post, put, type ApiResponse } from './support/api.js';
import { productInput } from './support/fixtures.js';
import { generatedStore } from './support/generated-store.js';
import { runImport, startImport } from './support/import-cli.js';
import { startMariaDb, type MariaDb } from './support/mariadb.js';
import { THELIA_TABLES, insertRows } from './support/thelia-tables.js';

const RECORDS = 100;

// Before the table is set up (test/support/table-per-file.ts): the API's client is made on first use.
const proxy = await startConflictProxy({ target: inject('dynamoEndpoint'), holdMs: 10 });
process.env.DYNAMODB_ENDPOINT = proxy.endpoint;

let mariadb: MariaDb;
let storeUrl: string;

beforeAll(async () => {
  mariadb = await startMariaDb();
  storeUrl = await mariadb.createDatabase('shop_traffic', THELIA_TABLES);
  for (const [table, rows] of Object.entries(generatedStore(RECORDS))) await insertRows(mariadb.admin, table, rows);
  // The first import, before the store opens on the API.
  const first = await runImport(['--from', storeUrl]);
  expect(first.status, first.stderr).toBe(0);
}, 180_000);

afterAll(async () => {
  await mariadb?.stop();
  await proxy.close();
});

const totalOf = async (path: string) => Number((await get(path)).headers['x-total-count']);

it('applies every edit and new record of the source while clients create and update products, with no 5xx and no 409; a run again changes nothing', async () => {
  // Thelia, still in use: a fifth of the products renamed, 50 customers signed up. (Products added
  // in Thelia would take the ids the API hands out since the first import: the report names those.)
  await mariadb.admin.query('USE `shop_traffic`');
  await mariadb.admin.query("UPDATE product_i18n SET title = CONCAT(title, ' (new)') WHERE id % 5 = 0 AND locale = 'en_US'");
  await mariadb.admin.query("UPDATE product SET updated_at = '2024-01-01 00:00:00' WHERE id % 5 = 0");
  const signedUp = generatedStore(50, RECORDS + 1);
  for (const table of ['customer', 'address']) await insertRows(mariadb.admin, table, signedUp[table]!);

  const importing = startImport(['--from', storeUrl, '--update']);
  let running = true;
  const finished = importing.finished.finally(() => (running = false));
  const answers: ApiResponse[] = [];
  const madeByApi: number[] = [];
  // The back office, meanwhile: 8 clients creating products and updating one of them, until the import ends.
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (running) {
        const created = await post('/api/products', productInput({ tax_rule: 0 }));
        answers.push(created);
        if (created.status !== 201) continue;
        madeByApi.push(created.body[0].ID);
        answers.push(await put(`/api/products/${madeByApi[Math.floor(Math.random() * madeByApi.length)]}`, { price: 5 }));
      }
    }),
  );
  const run = await finished;
  expect(run.status, run.stdout).toBe(0);
  expect(answers.filter((answer) => answer.status >= 500 || answer.status === 409).map((answer) => `${answer.status} ${answer.text}`)).toEqual([]);
  expect(madeByApi.length).toBeGreaterThan(0);

  const counts = run.report!.counts;
  expect(counts.product).toMatchObject({ updated: RECORDS / 5, unchanged: RECORDS - RECORDS / 5, skipped: 0 });
  expect(counts.customer).toMatchObject({ imported: 50, unchanged: RECORDS, skipped: 0 });
  expect(await totalOf('/api/products')).toBe(RECORDS + madeByApi.length);
  expect(await totalOf('/api/customers')).toBe(RECORDS + 50);
  expect((await get(`/api/products/${RECORDS}`)).body[0].TITLE).toBe(`Product ${RECORDS} (new)`);

  const again = await runImport(['--from', storeUrl, '--update']);
  expect(again.status, again.stderr).toBe(0);
  for (const kind of ['product', 'customer'] as const) expect(again.report!.counts[kind]).toMatchObject({ imported: 0, updated: 0, deleted: 0 });
}, 180_000);
