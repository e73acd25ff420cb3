/**
 * Thelia-compatible authentication (docs/api-keys.md), in the contract's order:
 *   401 + WWW-Authenticate: Token   no `Authorization: Token <key>`, or an unknown or revoked key
 *   412                             `sign` missing or not the HMAC-SHA1 of the raw body
 *   (429                            past the key's quota: quota.ts, between the two middlewares)
 *   403                             the key's profile lacks the route's access
 * Keys are cached per container for STORE_API_KEY_CACHE_SECONDS (default 30), so a warm request
 * costs no DynamoDB request and a revocation takes effect within that time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { allows } from '../api-keys/access.js';
import { findActiveKey, type ApiKeyRecord } from '../api-keys/index.js';
import type { Permission } from '../routes.js';
import { HttpProblem } from './problem.js';
import { header, rawBody, type HttpEvent, type HttpMiddleware } from './types.js';

interface CachedKey {
  record: ApiKeyRecord;
  secureKey: Buffer;
  expires: number;
}

const cache = new Map<string, CachedKey>();

const cacheMillis = (): number => Number(process.env.STORE_API_KEY_CACHE_SECONDS ?? 30) * 1000;

const unauthorized = (detail: string) => new HttpProblem(401, detail, { headers: { 'WWW-Authenticate': 'Token' } });

async function lookUp(apiKey: string): Promise<CachedKey | undefined> {
  const now = Date.now();
  const cached = cache.get(apiKey);
  if (cached && cached.expires > now) return cached;
  cache.delete(apiKey);
  const found = await findActiveKey(apiKey);
  if (!found) return undefined;
  const entry = { record: found.record, secureKey: Buffer.from(found.secureKey, 'hex'), expires: now + cacheMillis() };
  if (cacheMillis() > 0) cache.set(apiKey, entry);
  return entry;
}

function signatureMatches(event: HttpEvent, secureKey: Buffer): boolean {
  const sign = event.queryStringParameters?.sign;
  if (!sign || !/^[0-9a-fA-F]{40}$/.test(sign)) return false;
  const expected = createHmac('sha1', secureKey).update(rawBody(event)).digest();
  return timingSafeEqual(expected, Buffer.from(sign, 'hex'));
}

/** Who calls (401) and whether the body is theirs (412): then the request is the key's, and counts against its quota. */
export const authenticate = (): HttpMiddleware => ({
  before: async (request) => {
    const match = /^token\s+(\S+)\s*$/i.exec(header(request.event, 'authorization') ?? '');
    if (!match?.[1]) throw unauthorized('an API key is required: Authorization: Token <API_KEY>');
    const key = await lookUp(match[1]);
    if (!key) throw unauthorized('unknown or revoked API key');
    if (!signatureMatches(request.event, key.secureKey)) {
      // What is signed, the most common mistake, is said; never the value expected (a credential).
      throw new HttpProblem(
        412,
        'the sign query parameter must be the lowercase hex HMAC-SHA1 of the raw request body exactly as sent (the empty string when there is none), keyed with the bytes of the hex-decoded secure key',
      );
    }
    request.context.apiKey = key.record;
  },
});

/** Whether the key's profile has the route's access (403). */
export const authorize = (permission: Permission): HttpMiddleware => ({
  before: async (request) => {
    const key = request.context.apiKey;
    if (!key || !allows(key, permission.resource, permission.access)) {
      throw new HttpProblem(403, `this API key may not ${permission.access} ${permission.resource}`);
    }
  },
});

/** The key authenticate admitted, for the route's core (a stack without authenticate is refused, not trusted). */
export function callerOf(context: { apiKey?: ApiKeyRecord | undefined }): ApiKeyRecord {
  if (!context.apiKey) throw new HttpProblem(401, 'no API key authenticated this request');
  return context.apiKey;
}
