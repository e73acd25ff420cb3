/**
 * A write of the import that DynamoDB applied but whose answer never came back (the connection cut
 * after the request was delivered) is tried again without being applied twice: totals and each
 * rule's product count end as after a clean run. The same for an `--update --delete-missing` run's
 * updates and deletions: each is one change.
 */
import { describe, expect, it } from 'vitest';
import { del, get } from './support/api.js';
import { cursorNow, followChanges } from './support/changes.js';
import { runImport } from './support/import-cli.js';
import { useStoreBehindProxy } from './support/store-behind-proxy.js';

const store = useStoreBehindProxy();

describe('npm run import, when an answer is lost', () => {
  it('applies the products’ and the customers’ transactions once though their answers were lost', async () => {
    store.proxy.loseAnswerOn('LAMP-40', 'last@example.com');
    const run = await runImport(['--from', store.storeUrl], { DYNAMODB_ENDPOINT: store.proxy.endpoint });
    expect(run.status, run.stderr).toBe(2);
    expect(store.proxy.lostAnswers()).toBe(2);
    // The SDK's retry carries the transaction's ClientRequestToken, so DynamoDB answers it as the
    // applied transaction it is (imported); had it been applied anew, its conditions would fail and
    // the records be found unchanged. Either way, once.
    expect(run.report!.counts.product.imported + run.report!.counts.product.unchanged).toBe(6);
    expect(run.report!.counts.customer.imported + run.report!.counts.customer.unchanged).toBe(3);
    const again = await runImport(['--from', store.storeUrl]);
    expect(again.report!.counts.product).toMatchObject({ imported: 0, unchanged: 6 });
    expect(again.report!.counts.customer).toMatchObject({ imported: 0, unchanged: 3 });

    expect((await get('/api/products')).headers['x-total-count']).toBe('6');
    expect((await get('/api/customers')).headers['x-total-count']).toBe('3');
    // Rule 3 counts products 10 and 40 once each.
    expect((await del('/api/products/10')).status).toBe(204);
    expect((await del('/api/tax-rules/3')).status).toBe(409);
    expect((await del('/api/products/40')).status).toBe(204);
    expect((await del('/api/tax-rules/3')).status).toBe(204);
  }, 180_000);

  it("applies an --update run's updates and deletions once though their answers were lost", async () => {
    const db = store.mariadb.admin;
    await db.query("UPDATE `shop`.tax_rule_i18n SET title = 'EU VAT, 20%' WHERE id = 1 AND locale = 'en_US'");
    await db.query("UPDATE `shop`.tax_rule SET updated_at = '2024-01-01 00:00:00' WHERE id = 1");
    await db.query("UPDATE `shop`.customer SET lastname = 'Smith-Lost', updated_at = '2024-01-01 00:00:00' WHERE id = 1");
    await db.query('DELETE FROM `shop`.customer WHERE id = 50');
    const since = await cursorNow();

    store.proxy.loseAnswerOn('EU VAT, 20%', 'Smith-Lost', 'last@example.com');
    const run = await runImport(['--from', store.storeUrl, '--update', '--delete-missing'], { DYNAMODB_ENDPOINT: store.proxy.endpoint });
    expect(run.status, run.stderr).toBe(2);
    expect(store.proxy.lostAnswers()).toBe(5);
    expect(run.report!.records.customer.deleted).toEqual([50]);
    const { changes, cursor } = await followChanges(since);
    expect(changes.map((c) => `${c.RESOURCE} ${c.ENTITY_ID} ${c.TYPE} v${c.VERSION}`).sort()).toEqual(['customer 1 updated v2', 'customer 50 deleted v1', 'tax-rule 1 updated v3']);
    expect((await get('/api/customers')).headers['x-total-count']).toBe('2');

    const again = await runImport(['--from', store.storeUrl, '--update', '--delete-missing']);
    expect(again.report!.records.customer).toMatchObject({ updated: [], unchanged: [1, 10], deleted: [] });
    expect((await followChanges(cursor)).changes).toEqual([]);
  }, 180_000);
});
