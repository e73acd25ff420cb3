/**
 * A write of the import that DynamoDB applied but whose answer never came back (the connection cut
 * after the request was delivered) is tried again without being applied twice: totals and each
 * rule's product count end as after a clean run.
 */
import { describe, expect, it } from 'vitest';
import { del, get } from './support/api.js';
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
  }, 90_000);
});
