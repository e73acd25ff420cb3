/**
 * A deployment with `-c search=opensearch` (its functions have STORE_SEARCH_ENDPOINT), against the
 * stand-in of OpenSearch Serverless (test/support/opensearch-stand-in.ts): the index follows the
 * table's changes, a list it serves answers through the API, a throttled collection is asked again
 * within the request's budget, and one that does not answer ends with that budget (503), not later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenSearchEngine } from '../lib/opensearch/engine.js';
import { followIntoSearchIndex } from '../lib/search/index.js';
import { get } from './support/api.js';
import { createProduct } from './support/fixtures.js';
import { type OpenSearchStandIn, startOpenSearchStandIn } from './support/opensearch-stand-in.js';

// The function's role, as Lambda hands it: the stand-in knows its secret.
const credentials = { accessKeyId: 'AKIDFUNCTIONROLE', secretAccessKey: 'the role secret' };
let standIn: OpenSearchStandIn;

beforeAll(async () => {
  standIn = await startOpenSearchStandIn(credentials);
  Object.assign(process.env, { STORE_SEARCH_ENDPOINT: standIn.url, AWS_ACCESS_KEY_ID: credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey });
});
afterAll(() => standIn.close());

describe('lists served by OpenSearch', () => {
  it('answer from the index the feed keeps, asked again when throttled, and within the budget when it stalls', async () => {
    const chair = (await createProduct({ title: 'Fauteuil club' })).row;
    await createProduct({ title: 'Table basse' });
    // The indexer's run, as its function does it on AWS.
    await followIntoSearchIndex(new OpenSearchEngine(standIn.url, { credentials }));

    const found = await get('/api/products?title=fauteuil');
    expect(found.status, found.text).toBe(200);
    expect(found.body.map((row: { ID: number }) => row.ID)).toEqual([chair.ID]);
    expect(standIn.log.some((line) => line.startsWith('POST /store-products/_search 200'))).toBe(true);

    standIn.fail(429, 2);
    const throttled = await get('/api/products?title=fauteuil');
    expect(throttled.status, throttled.text).toBe(200);
    expect(throttled.body.map((row: { ID: number }) => row.ID)).toEqual([chair.ID]);

    process.env.STORE_REQUEST_BUDGET_MS = '1500';
    try {
      standIn.stall(10);
      const started = Date.now();
      const stalled = await get('/api/products?title=fauteuil');
      expect(stalled.status, stalled.text).toBe(503);
      expect(stalled.body.type).toBe('/api/docs#problem-out-of-time');
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      delete process.env.STORE_REQUEST_BUDGET_MS;
    }
  });
});
