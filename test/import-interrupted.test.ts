/**
 * An import cut off in the middle (Ctrl-C while DynamoDB stalls under it, as when a laptop loses
 * its network) is run again and completes: what was written stays as it
 * is, what was not is written, and the counters end as after one whole run.
 */
import { describe, expect, it } from 'vitest';
import { del, get } from './support/api.js';
import { startImport } from './support/import-cli.js';
import { useStoreBehindProxy } from './support/store-behind-proxy.js';

const store = useStoreBehindProxy();

const until = async (condition: () => boolean, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('npm run import, interrupted', () => {
  it('completes when run again after it was interrupted in the middle of a write', async () => {
    // The customers' first transaction never reaches DynamoDB; the import is interrupted (Ctrl-C) while it waits.
    store.proxy.stallOn('last@example.com');
    const cut = startImport(['--from', store.storeUrl], { DYNAMODB_ENDPOINT: store.proxy.endpoint });
    await until(() => /products\s+16\/16/.test(cut.progress()));
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
      'tax rule': { read: 11, imported: 0, updated: 0, unchanged: 3, kept: 0, conflict: 0, skipped: 8 },
      product: { read: 16, imported: 0, updated: 0, unchanged: 6, kept: 0, conflict: 0, skipped: 10 },
      customer: { read: 12, imported: 3, updated: 0, unchanged: 0, kept: 0, conflict: 0, skipped: 9 },
    });
    expect((await get('/api/customers')).headers['x-total-count']).toBe('3');
    // Rule 3 counts its two products once, not once per run.
    expect((await del('/api/products/10')).status).toBe(204);
    expect((await del('/api/products/40')).status).toBe(204);
    expect((await del('/api/tax-rules/3')).status).toBe(204);
  }, 90_000);
});
