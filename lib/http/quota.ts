/**
 * The caller's quota (docs/api-keys.md), once its key and signature are verified: every answer of a
 * limited key carries the IETF ratelimit-headers draft's fields, and a request past the quota is a
 * 429 that reads and writes nothing. The fields go on whatever the answer turns out to be (an error
 * too) through `context.responseHeaders` (response-headers.ts).
 */
import { admitRequest, type Admission, type Quota } from '../api-keys/quota.js';
import { HttpProblem } from './problem.js';
import type { HttpMiddleware, HttpRequest } from './types.js';

const rateLimitFields = (quota: Quota, admission: Admission): Record<string, string> => ({
  'RateLimit-Policy': `"default";q=${quota.requests};w=${quota.seconds}`,
  RateLimit: `"default";r=${admission.remaining};t=${admission.resetSeconds}`,
});

/** The 429 of a key past its quota, with the fields of its window. */
const quotaExceeded = (quota: Quota, admission: Admission) =>
  new HttpProblem(429, `this API key's quota of ${quota.requests} requests per ${quota.seconds} seconds is used up; retry in ${admission.resetSeconds} s`, {
    kind: 'quota-exceeded',
    headers: { 'Retry-After': String(admission.resetSeconds) },
  });

/**
 * Charges a request that does the work of several (a batch: one unit a row) `units` more than the
 * one quotaPerKey admitted, before it writes anything: past the quota, a 429.
 */
export const chargeUnits = (units: (request: HttpRequest) => number): HttpMiddleware => ({
  before: async (request) => {
    const key = request.context.apiKey;
    const quota = key?.quota;
    if (!key || !quota) return;
    for (let unit = 0; unit < units(request); unit++) {
      const admission = await admitRequest(key.apiKey, quota);
      request.context.responseHeaders = { ...request.context.responseHeaders, ...rateLimitFields(quota, admission) };
      if (!admission.admitted) throw quotaExceeded(quota, admission);
      await admission.settling;
    }
  },
});

export const quotaPerKey = (): HttpMiddleware => {
  // A renewal of the key's lease runs beside the request; its answer waits for it (Lambda freezes what is left running).
  const settling = new WeakMap<object, Promise<void>>();
  const settle = async (request: { context: object }) => {
    await settling.get(request.context)?.catch(() => undefined);
  };
  return {
    before: async (request) => {
      const key = request.context.apiKey;
      const quota = key?.quota;
      if (!key || !quota) return;
      const admission = await admitRequest(key.apiKey, quota);
      request.context.responseHeaders = { ...request.context.responseHeaders, ...rateLimitFields(quota, admission) };
      if (!admission.admitted) throw quotaExceeded(quota, admission);
      settling.set(request.context, admission.settling);
    },
    after: settle,
    onError: settle,
  };
};
