/**
 * lib/http/quota.ts, on its own (docs/api-keys.md): `quotaPerKey` admits a limited key's requests up to
 * its quota, with the ratelimit fields on every answer, and refuses the next with a 429;
 * `chargeUnits` charges a batch its further units before it writes. The windows live in the file's
 * table on DynamoDB Local.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { chargeUnits, quotaPerKey } from '../../../lib/http/quota.js';
import type { HttpRequest } from '../../../lib/http/types.js';
import { httpRequest, outcomeOf } from '../../support/http-request.js';
import { useTable } from '../../support/file-table.js';

// Its keys, leases and quota windows live in the file's table.
useTable();

// Windows start at every whole minute: each test runs a second into one, with the clock held there,
// so that a slow runner never carries its requests over into the next window.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: Math.floor(Date.now() / 60_000) * 60_000 + 1_000 });
});
afterEach(() => vi.useRealTimers());

const limitedKey = (requests: number) => ({ apiKey: randomBytes(13).toString('hex').slice(0, 25).toUpperCase(), quota: { requests, seconds: 60 } });

/** Runs the middleware's before and after, as middy would around a handler. */
async function through(middleware: ReturnType<typeof quotaPerKey>, request: HttpRequest) {
  const outcome = await outcomeOf(middleware, request);
  await middleware.after?.(request);
  return outcome;
}

describe('quotaPerKey', () => {
  it('admits a key’s quota of requests, each answer saying what is left, and refuses the next with a 429 that says when to retry', async () => {
    const apiKey = limitedKey(3);
    const quota = quotaPerKey();
    const answers = [];
    for (let n = 0; n < 3; n++) {
      const request = httpRequest({ apiKey });
      expect(await through(quota, request)).toBe('passed');
      answers.push(request.context.responseHeaders);
    }
    expect(answers.map((headers) => headers?.RateLimit)).toEqual([expect.stringMatching(/^"default";r=2;t=\d+$/), expect.stringMatching(/r=1;/), expect.stringMatching(/r=0;/)]);
    expect(answers[0]?.['RateLimit-Policy']).toBe('"default";q=3;w=60');
    const refused = httpRequest({ apiKey });
    expect(await through(quota, refused)).toMatchObject({ status: 429, detail: expect.stringContaining('quota of 3 requests per 60 seconds is used up') });
    expect(refused.context.responseHeaders?.RateLimit).toMatch(/^"default";r=0;t=\d+$/);
  });

  it('lets a key without a quota through without counting it', async () => {
    const request = httpRequest({ apiKey: { apiKey: 'F'.repeat(25) } });
    expect(await through(quotaPerKey(), request)).toBe('passed');
    expect(request.context.responseHeaders).toBeUndefined();
  });
});

describe('chargeUnits', () => {
  it('charges the further units of a request before it writes, refusing it whole (429) once they pass the quota', async () => {
    const apiKey = limitedKey(5);
    expect(
      await outcomeOf(
        chargeUnits(() => 3),
        httpRequest({ apiKey }),
      ),
    ).toBe('passed');
    expect(
      await outcomeOf(
        chargeUnits(() => 3),
        httpRequest({ apiKey }),
      ),
    ).toMatchObject({ status: 429 });
    expect(
      await outcomeOf(
        chargeUnits(() => 0),
        httpRequest({ apiKey }),
      ),
    ).toBe('passed');
  });
});
