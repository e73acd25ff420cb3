import { describe, expect, it } from 'vitest';
import { get, post, problemFields, put, tableSnapshot } from './support/api.js';
import { createCustomer, customerInput, keyWith, productInput } from './support/fixtures.js';

const withKey = (key: string) => ({ headers: { 'idempotency-key': key } });
let sequence = 0;
const newKey = () => `retry-${process.pid}-${Date.now()}-${++sequence}`;

describe('Idempotency-Key on POST', () => {
  it('replays the first answer to a retry with the same body, without writing again', async () => {
    const key = newKey();
    const input = productInput();
    const first = await post('/api/products', input, withKey(key));
    expect(first.status).toBe(201);
    const before = await tableSnapshot();
    const retry = await post('/api/products', input, withKey(key));
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await tableSnapshot()).toEqual(before);
  });

  it('answers 409 to the same key with another body', async () => {
    const key = newKey();
    expect((await post('/api/products', productInput(), withKey(key))).status).toBe(201);
    const before = await tableSnapshot();
    const other = await post('/api/products', productInput(), withKey(key));
    expect(other.status).toBe(409);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('gives exactly one record to 20 concurrent retries of one create', async () => {
    const key = newKey();
    const input = customerInput();
    const responses = await Promise.all(Array.from({ length: 20 }, () => post('/api/customers', input, withKey(key))));
    for (const response of responses) expect([201, 409]).toContain(response.status);
    const created = responses.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body[0].ID)).size).toBe(1);
    expect((await get(`/api/customers?email=${encodeURIComponent(input.email)}`)).body).toHaveLength(1);
  });

  it('scopes keys to the API key', async () => {
    const key = newKey();
    const other = await keyWith({ tax: ['CREATE'] });
    const body = { country: [64], tax: [1], i18n: [{ locale: 'en_US', title: 'scoped' }] };
    const mine = await post('/api/tax-rules', body, withKey(key));
    const theirs = await post('/api/tax-rules', body, { ...withKey(key), as: other });
    expect(theirs.status).toBe(201);
    expect(theirs.body[0].ID).not.toBe(mine.body[0].ID);
  });

  it('replays a refused request too (4xx)', async () => {
    const key = newKey();
    const invalid = await post('/api/products', { ref: '' }, withKey(key));
    expect(invalid.status).toBe(400);
    const replay = await post('/api/products', { ref: '' }, withKey(key));
    expect(replay.text).toBe(invalid.text);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('covers the query string: the same body with another lang is another request (409)', async () => {
    const key = newKey();
    const body = { country: [64], tax: [1], i18n: [{ locale: 'en_US', title: 'by lang' }] };
    expect((await post('/api/tax-rules?lang=en_US', body, withKey(key))).status).toBe(201);
    expect((await post('/api/tax-rules?lang=fr_FR', body, withKey(key))).status).toBe(409);
  });

  it('is ignored by checkLogin, a read: never replayed, never recorded, even after a password change', async () => {
    const { row, input } = await createCustomer();
    const login = { email: input.email, password: input.password };
    const key = newKey();
    const first = await post('/api/customers/checkLogin', login, withKey(key));
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect((await put('/api/customers', { id: row.ID, password: 'a brand new password' })).status).toBe(201);
    const again = await post('/api/customers/checkLogin', login, withKey(key));
    expect(again.status).toBe(404);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect((await post('/api/customers/checkLogin', { ...login, password: 'a brand new password' }, withKey(key))).status).toBe(200);
    expect(JSON.stringify(await tableSnapshot())).not.toContain(input.password);
  });

  it('refuses a malformed key', async () => {
    expect(problemFields(await post('/api/products', productInput(), withKey('has space')))).toEqual(['Idempotency-Key']);
    expect(problemFields(await post('/api/products', productInput(), withKey('x'.repeat(256))))).toEqual(['Idempotency-Key']);
  });
});

describe('If-Match on PUT and DELETE', () => {
  it('accepts * as "whatever the current version"', async () => {
    const { row } = await createCustomer();
    const response = await put('/api/customers', { id: row.ID, city: 'Metz', zipcode: '57000' }, { headers: { 'if-match': '*' } });
    expect(response.status).toBe(201);
    expect(response.headers.etag).toBe('"2"');
  });

  it('refuses a malformed version with 412 and writes nothing', async () => {
    const { row } = await createCustomer();
    const before = await tableSnapshot();
    expect((await put('/api/customers', { id: row.ID, city: 'Metz', zipcode: '57000' }, { headers: { 'if-match': 'yesterday' } })).status).toBe(412);
    expect(await tableSnapshot()).toEqual(before);
  });
});
