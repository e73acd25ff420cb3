/**
 * An import cut off in the middle (Ctrl-C while DynamoDB stalls under it, as when a laptop loses
 * its network) is run again and completes: what was written stays as it
 * is, what was not is written, and the counters end as after one whole run. The same holds for an
 * `--update` run: each record is updated once, whichever run applies it.
 */
import { describe, expect, it } from 'vitest';
import { del, get } from './support/api.js';
import { cursorNow, followChanges } from './support/changes.js';
import { startImport } from './support/import-cli.js';
import { useStoreBehindProxy } from './support/store-behind-proxy.js';

const store = useStoreBehindProxy();

/** Waits until `condition` holds, looking again every 50 ms. */
const until = async (condition: () => boolean | Promise<boolean>, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('npm run import, interrupted', () => {
  it('completes when run again after it was interrupted in the middle of a write', async () => {
    // The customers' first transaction never reaches DynamoDB; the import is interrupted (Ctrl-C) while it waits.
    store.proxy.stallOn('last@example.com');
    const cut = startImport(['--from', store.storeUrl], { DYNAMODB_ENDPOINT: store.proxy.endpoint });
    await until(() => /sale elements\s+22\/22/.test(cut.progress()));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    cut.process.kill('SIGINT');
    const interrupted = await cut.finished;
    expect(interrupted.status).toBe(1);
    expect(interrupted.stderr).toContain('import interrupted: what was written stays; run the same command again to complete it');
    store.proxy.drop();
    store.proxy.pass();

    expect((await get('/api/products')).headers['x-total-count']).toBe('6');
    expect((await get('/api/customers')).headers['x-total-count']).toBe('0');

    const rerun = await startImport(['--from', store.storeUrl]).finished;
    expect(rerun.status, rerun.stderr).toBe(2);
    expect(rerun.report!.counts).toEqual({
      'tax rule': { read: 11, imported: 0, updated: 0, unchanged: 3, kept: 0, conflict: 0, missing: 0, deleted: 0, skipped: 8 },
      category: { read: 5, imported: 0, updated: 0, unchanged: 3, kept: 0, conflict: 0, missing: 0, deleted: 0, skipped: 2 },
      brand: { read: 2, imported: 0, updated: 0, unchanged: 2, kept: 0, conflict: 0, missing: 0, deleted: 0, skipped: 0 },
      product: { read: 16, imported: 0, updated: 0, unchanged: 6, kept: 0, conflict: 0, missing: 0, deleted: 0, skipped: 10 },
      attribute: { read: 2, imported: 0, updated: 0, unchanged: 2, kept: 0, conflict: 0, missing: 0, deleted: 0, skipped: 0 },
      'attribute value': { read: 4, imported: 0, updated: 0, unchanged: 3, kept: 0, conflict: 0, missing: 0, deleted: 0, skipped: 1 },
      'sale element': { read: 22, imported: 0, updated: 0, unchanged: 8, kept: 0, conflict: 0, missing: 0, deleted: 0, skipped: 14 },
      customer: { read: 12, imported: 3, updated: 0, unchanged: 0, kept: 0, conflict: 0, missing: 0, deleted: 0, skipped: 9 },
    });
    expect((await get('/api/customers')).headers['x-total-count']).toBe('3');
    // Rule 3 counts its two products once, not once per run.
    expect((await del('/api/products/10')).status).toBe(204);
    expect((await del('/api/products/40')).status).toBe(204);
    expect((await del('/api/tax-rules/3')).status).toBe(204);
  }, 180_000);

  it('completes an interrupted --update run when it is run again, each edit applied once', async () => {
    // In Thelia since the import: customers 1 and 50 edited, customer 10 deleted.
    const db = store.mariadb.admin;
    await db.query("UPDATE `shop`.customer SET lastname = 'First edit', updated_at = '2024-01-01 00:00:00' WHERE id = 1");
    await db.query("UPDATE `shop`.customer SET lastname = 'Last edit', updated_at = '2024-01-01 00:00:00' WHERE id = 50");
    await db.query('DELETE FROM `shop`.customer WHERE id = 10');
    const since = await cursorNow();

    // Customer 50's update (what it sets: its new name) never reaches DynamoDB; the run is interrupted while it waits.
    store.proxy.stallOn('Last edit');
    const cut = startImport(['--from', store.storeUrl, '--update', '--delete-missing'], { DYNAMODB_ENDPOINT: store.proxy.endpoint });
    await until(async () => (await get('/api/customers/1')).body[0]?.LASTNAME === 'First edit');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    cut.process.kill('SIGINT');
    expect((await cut.finished).status).toBe(1);
    store.proxy.drop();
    store.proxy.pass();
    expect((await get('/api/customers/50')).body[0]).toMatchObject({ LASTNAME: 'Customer 50', VERSION: 1 });
    expect((await get('/api/customers/10')).status).toBe(200);

    const rerun = await startImport(['--from', store.storeUrl, '--update', '--delete-missing']).finished;
    expect(rerun.status, rerun.stderr).toBe(2);
    expect(rerun.report!.records.customer).toMatchObject({ updated: [50], unchanged: [1], deleted: [10], missing: [] });
    expect((await get('/api/customers/50')).body[0]).toMatchObject({ LASTNAME: 'Last edit', VERSION: 2 });
    expect((await get('/api/customers/10')).status).toBe(404);
    const { changes } = await followChanges(since);
    expect(changes.map((c) => `${c.ENTITY_ID} ${c.TYPE} v${c.VERSION}`).sort()).toEqual(['1 updated v2', '10 deleted v1', '50 updated v2']);
  }, 180_000);
});
