/**
 * DynamoDB stalled or cut, for real: this file's requests reach DynamoDB Local through a TCP proxy
 * (support/fault-proxy.ts) that holds bytes back or drops connections on command. The request
 * budget is 2 s here (10 s by default) to keep the suite fast, and keys are looked up on every
 * request, as by a cold Lambda, so that the key lookup stalls too.
 */
import { inject, afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy } from './support/fault-proxy.js';

const proxy = await startFaultProxy(inject('dynamoEndpoint'));
process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
process.env.STORE_REQUEST_BUDGET_MS = '2000';
process.env.STORE_API_KEY_CACHE_SECONDS = '0';
const BUDGET_MS = 2000;

const { del, get, post, put, superadminKey } = await import('./support/api.js');
const { createCustomer, createProduct, customerInput, productInput } = await import('./support/fixtures.js');

const TRANSACT_WRITE = 'DynamoDB_20120810.TransactWriteItems';
const withKey = (key: string) => ({ headers: { 'idempotency-key': key } });
const customersWithEmail = async (email: string) => (await get(`/api/customers?email=${encodeURIComponent(email)}`)).body as unknown[];

beforeAll(async () => {
  await superadminKey();
});

afterAll(async () => {
  proxy.pass();
  await proxy.close();
});

describe('with DynamoDB stalled', () => {
  it('every route answers 503 + Retry-After within its budget, and serves again as soon as DynamoDB does', async () => {
    const customer = (await createCustomer()).row;
    const product = (await createProduct()).row;
    const requests = [
      () => get('/api/tax-rules'),
      () => get('/api/tax-rules/1'),
      () => post('/api/tax-rules', { country: [64], tax: [1], i18n: [{ locale: 'en_US', title: 'stalled' }] }),
      () => put('/api/tax-rules', { id: 2, i18n: [{ locale: 'en_US', title: 'stalled' }] }),
      () => del('/api/tax-rules/2'),
      () => get('/api/customers'),
      () => get(`/api/customers/${customer.ID}`),
      () => post('/api/customers', customerInput()),
      () => put('/api/customers', { id: customer.ID, city: 'Brest', zipcode: '29200' }),
      () => del(`/api/customers/${customer.ID}`),
      () => post('/api/customers/checkLogin', { email: customer.EMAIL, password: 'correct horse battery' }),
      () => get('/api/products'),
      () => get(`/api/products/${product.ID}`),
      () => post('/api/products', productInput(), withKey(`stalled-${Date.now()}`)),
      () => put(`/api/products/${product.ID}`, { price: 3 }),
      () => del(`/api/products/${product.ID}`),
    ];
    proxy.stall();
    const started = Date.now();
    const answers = await Promise.all(requests.map(async (request) => ({ response: await request(), ms: Date.now() - started })));
    for (const { response, ms } of answers) {
      expect(response.status, response.text).toBe(503);
      expect(response.headers['retry-after']).toBe('1');
      expect(ms).toBeLessThan(BUDGET_MS + 1000);
    }
    proxy.drop();
    expect((await get('/api/tax-rules/1')).status).toBe(200);
  });

  it('applies an idempotent create exactly once when its write was held back, answered 503, then arrived late', async () => {
    const input = customerInput();
    const key = `late-${Date.now()}`;
    proxy.stallOn(TRANSACT_WRITE);
    expect((await post('/api/customers', input, withKey(key))).status).toBe(503);
    proxy.pass(); // the held-back transaction reaches DynamoDB now, after its request gave up
    await new Promise((resolve) => setTimeout(resolve, 300));
    const retry = await post('/api/customers', input, withKey(key));
    expect(retry.status, retry.text).toBe(201);
    // The late write committed, and recorded its answer in the same transaction: the retry replays it.
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await customersWithEmail(input.email)).toHaveLength(1);
  });

  it('frees a key whose request died mid-write once its lease ends, and then writes once', async () => {
    const input = customerInput();
    const key = `died-${Date.now()}`;
    proxy.stallOn(TRANSACT_WRITE);
    expect((await post('/api/customers', input, withKey(key))).status).toBe(503);
    proxy.drop(); // the write never arrives, and the request could not free its key
    const early = await post('/api/customers', input, withKey(key));
    expect(early.status).toBe(409);
    expect(Number(early.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, Number(early.headers['retry-after']) * 1000));
    const retry = await post('/api/customers', input, withKey(key));
    expect(retry.status, retry.text).toBe(201);
    expect(await customersWithEmail(input.email)).toHaveLength(1);
  });

  it('frees the key at once when the write fails for sure (connections cut), so that the retry writes once', async () => {
    const input = productInput();
    const key = `cut-${Date.now()}`;
    proxy.reset();
    expect((await post('/api/products', input, withKey(key))).status).toBe(503);
    proxy.pass();
    const retry = await post('/api/products', input, withKey(key));
    expect(retry.status, retry.text).toBe(201);
    expect((await get(`/api/products?ref=${input.ref}`)).body).toHaveLength(1);
  });
});
