/**
 * `npm run import -- --update` (CONTRACT §10's last paragraph): after a first import, Thelia keeps
 * taking edits while the API is tried. An update run applies the source's edits to the records
 * nobody changed through the API since, leaves the API's edits alone, and lists the records changed
 * on both sides as conflicts; run again, it changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, put } from './support/api.js';
import { cursorNow, followChanges } from './support/changes.js';
import { runImport } from './support/import-cli.js';
import { startMariaDb, type MariaDb } from './support/mariadb.js';
import { createTheliaStore } from './support/thelia-store.js';

let mariadb: MariaDb;
let storeUrl: string;

beforeAll(async () => {
  mariadb = await startMariaDb();
  storeUrl = await createTheliaStore(mariadb, 'shop_update');
  expect((await runImport(['--from', storeUrl])).status).toBe(2);
}, 120_000);

afterAll(() => mariadb?.stop());

describe('npm run import -- --update', () => {
  it('applies the source\'s edits to untouched records, keeps the API\'s, lists both-sided edits as conflicts, then changes nothing', async () => {
    // Customer 1: edited in Thelia only. Customer 10: through the API only. Customer 50: on both sides.
    await mariadb.admin.query("UPDATE `shop_update`.customer SET lastname = 'Smith-Jones', updated_at = '2024-04-04 04:04:04' WHERE id = 1");
    await mariadb.admin.query("UPDATE `shop_update`.customer SET firstname = 'Lasting', updated_at = '2024-05-05 05:05:05' WHERE id = 50");
    expect((await put('/api/customers', { id: 10, city: 'Liège', zipcode: '4000' })).status).toBe(201);
    expect((await put('/api/customers', { id: 50, city: 'Nice', zipcode: '06000', country: 64 })).status).toBe(201);
    const since = await cursorNow();

    const run = await runImport(['--from', storeUrl, '--update']);
    expect(run.status, run.stderr).toBe(2);
    expect(run.report!.counts.customer).toEqual({ read: 12, imported: 0, updated: 1, unchanged: 0, kept: 1, conflict: 1, skipped: 9 });
    expect(run.report!.conflicts).toEqual([{ kind: 'customer', id: 50, sourceUpdatedAt: '2024-05-05T05:05:05.000Z', tableUpdatedAt: expect.stringMatching(/^20\d\d-/) }]);
    expect(run.stdout).toContain('customer 50: Thelia updated_at 2024-05-05T05:05:05.000Z');

    expect((await get('/api/customers/1')).body[0]).toMatchObject({ LASTNAME: 'Smith-Jones', VERSION: 2 });
    expect((await get('/api/customers/10')).body[0]).toMatchObject({ CITY: 'Liège', VERSION: 2 });
    expect((await get('/api/customers/50')).body[0]).toMatchObject({ FIRSTNAME: expect.not.stringMatching('Lasting'), CITY: 'Nice' });
    // The update is a change made by the import, of exactly what changed.
    const { changes, cursor } = await followChanges(since);
    expect(changes.map((c) => [c.RESOURCE, c.ENTITY_ID, c.TYPE, c.VERSION, c.API_KEY])).toEqual([['customer', 1, 'updated', 2, 'import']]);
    expect(changes[0]!.CHANGES).toEqual([{ field: 'LASTNAME', locale: null, before: 'Smith', after: 'Smith-Jones' }]);

    const again = await runImport(['--from', storeUrl, '--update']);
    expect(again.report!.counts.customer).toEqual({ read: 12, imported: 0, updated: 0, unchanged: 1, kept: 1, conflict: 1, skipped: 9 });
    expect((await followChanges(cursor)).changes).toEqual([]);
  }, 120_000);

  it('without --update, leaves the source\'s edits unapplied and lists no conflict', async () => {
    await mariadb.admin.query("UPDATE `shop_update`.customer SET lastname = 'Smith-Brown', updated_at = '2024-06-06 06:06:06' WHERE id = 1");
    const run = await runImport(['--from', storeUrl]);
    // Customers 1 (the source), 10 (the API) and 50 (both) are all left as they are.
    expect(run.report!.counts.customer).toMatchObject({ updated: 0, kept: 3, conflict: 0 });
    expect((await get('/api/customers/1')).body[0]).toMatchObject({ LASTNAME: 'Smith-Jones' });
  }, 60_000);
});
