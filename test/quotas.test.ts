/**
 * Request quotas per API key (docs/api-keys.md): the ratelimit-headers fields on every answer of a
 * limited key, the 429 past the quota (nothing read or written), the window's reset, and one count
 * per key whichever container answers. Quotas of a day keep these windows from turning mid-test
 * (windows are aligned on the epoch), except where the reset is what is tested.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../lib/api-keys/index.js';
import { defineQuotaWindows } from '../lib/db/quota-windows.js';
import { QUOTA_EXCEEDED_TYPE } from '../lib/http/problem-types.js';
import { get, post, tableSnapshot, type ApiResponse } from './support/api.js';

process.env.STORE_API_KEY_CACHE_SECONDS = '0';

const DAY = 86_400;

const limitedKey = (requests: number, seconds = DAY, grants = {}) =>
  createApiKey({ label: 'limited', ...(Object.keys(grants).length ? { grants } : { superadmin: true }), quota: { requests, seconds } });

/** The RateLimit field's parts. */
function left(response: ApiResponse): { r: number; t: number } {
  const match = /^"default";r=(\d+);t=(\d+)$/.exec(response.headers.ratelimit ?? '');
  if (!match) throw new Error(`no RateLimit field: ${JSON.stringify(response.headers)}`);
  return { r: Number(match[1]), t: Number(match[2]) };
}

describe('a key with a quota', () => {
  it('is told what is left on every answer, and past its quota gets a 429 that reads and writes nothing', async () => {
    const key = await limitedKey(5);
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await get('/api/tax-rules/1', { as: key });
      expect(response.status).toBe(200);
      expect(response.headers['ratelimit-policy']).toBe(`"default";q=5;w=${DAY}`);
      remaining.push(left(response).r);
      expect(left(response).t).toBeGreaterThan(0);
      expect(left(response).t).toBeLessThanOrEqual(DAY);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);

    const before = await tableSnapshot();
    const refused = await post('/api/tax-rules', { country: [64], tax: [1], i18n: [{ locale: 'en_US', title: 'Past the quota' }] }, { as: key });
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toBe('application/problem+json');
    expect(refused.body).toMatchObject({ type: QUOTA_EXCEEDED_TYPE, status: 429 });
    expect(Number(refused.headers['retry-after'])).toBe(left(refused).t);
    expect(left(refused).r).toBe(0);
    expect((await get('/api/tax-rules/1', { as: key })).status).toBe(429);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('counts answers that are errors, which carry the fields too; a 401 or 412 neither counts nor carries them', async () => {
    const key = await limitedKey(10, DAY, { product: ['VIEW'] });
    expect(left(await get('/api/products/999999', { as: key }))).toMatchObject({ r: 9 });
    const forbidden = await get('/api/customers', { as: key });
    expect(forbidden.status).toBe(403);
    expect(left(forbidden).r).toBe(8);

    const badSign = await get('/api/products', { as: key, sign: '0'.repeat(40) });
    expect(badSign.status).toBe(412);
    expect(badSign.headers.ratelimit).toBeUndefined();
    const unknown = await get('/api/products', { as: { apiKey: 'ABCDEF0123456789ABCDEF012', secureKey: key.secureKey } });
    expect(unknown.status).toBe(401);
    expect(unknown.headers.ratelimit).toBeUndefined();
    expect(left(await get('/api/products', { as: key }))).toMatchObject({ r: 7 });
  });

  it('gets its quota again when the window turns', async () => {
    const key = await limitedKey(2, 2);
    // Starts at a window's beginning, so that the two requests fall in one window.
    await sleep(2_000 - (Date.now() % 2_000) + 20);
    expect((await get('/api/tax-rules/1', { as: key })).status).toBe(200);
    expect((await get('/api/tax-rules/1', { as: key })).status).toBe(200);
    const refused = await get('/api/tax-rules/1', { as: key });
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers['retry-after']);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(2);
    await sleep(2_000 - (Date.now() % 2_000) + 20);
    const again = await get('/api/tax-rules/1', { as: key });
    expect(again.status).toBe(200);
    expect(left(again).r).toBe(1);
  });

  it('admits exactly its quota of concurrent requests in one container', async () => {
    const key = await limitedKey(25);
    const statuses = await Promise.all(Array.from({ length: 40 }, () => get('/api/tax-rules/1', { as: key }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(25);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  });
});

describe('a key without a quota', () => {
  it('gets no quota fields', async () => {
    const response = await get('/api/tax-rules/1');
    expect(response.status).toBe(200);
    expect(response.headers['ratelimit-policy']).toBeUndefined();
    expect(response.headers.ratelimit).toBeUndefined();
  });
});

describe('one count per key for the whole deployment', () => {
  it('admits, across eight containers at once, at least the quota and at most 5 % more', async () => {
    // Each definition holds its own leases, as each Lambda container does; they share the table.
    const containers = Array.from({ length: 8 }, () => defineQuotaWindows('QUOTA'));
    const quota = { requests: 200, seconds: DAY };
    const admissions = await Promise.all(
      containers.flatMap((container) =>
        Array.from({ length: 40 }, async () => {
          const admission = await container.admit('SHARED-KEY', quota);
          if (admission.admitted) await admission.settling;
          return admission.admitted;
        }),
      ),
    );
    const admitted = admissions.filter(Boolean).length;
    expect(admitted).toBeGreaterThanOrEqual(200);
    expect(admitted).toBeLessThanOrEqual(210);
  });

  it("keeps each key's count in items of its own", async () => {
    const [a, b] = [await limitedKey(3), await limitedKey(3)];
    for (let i = 0; i < 3; i++) expect((await get('/api/tax-rules/1', { as: a })).status).toBe(200);
    expect((await get('/api/tax-rules/1', { as: a })).status).toBe(429);
    expect(left(await get('/api/tax-rules/1', { as: b })).r).toBe(2);
    const partitions = (await tableSnapshot()).map((item) => String(item.pk)).filter((pk) => pk.startsWith('QUOTA#'));
    expect(partitions.some((pk) => pk.startsWith(`QUOTA#${a.apiKey}#`))).toBe(true);
    expect(partitions.some((pk) => pk.startsWith(`QUOTA#${b.apiKey}#`))).toBe(true);
  });
});
