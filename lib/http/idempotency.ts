/**
 * Idempotent POSTs (CONTRACT §7): a request with `Idempotency-Key` records its answer under that
 * key, scoped to the caller's API key, for 24 hours. A retry with the same body gets the recorded
 * answer and writes nothing; with another body, or while the first is still running, it gets 409.
 * The body is kept only as an HMAC under a server key, so a checkLogin record holds nothing from
 * which a password could be recovered. Answers of 5xx are not recorded: the client may retry them.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { defineIdempotencyStore } from '../db/idempotency-store.js';
import { invalidField } from '../errors.js';
import { serverKey } from '../secrets.js';
import { problemResponse, toProblem } from './errors.js';
import { HttpProblem } from './problem.js';
import { header, rawBody, type HttpMiddleware, type HttpRequest, type HttpResponse } from './types.js';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
const KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;

const store = defineIdempotencyStore<HttpResponse>(IDEMPOTENCY_TTL_SECONDS);
const taken = new WeakMap<HttpRequest, string>();

function fingerprint(request: HttpRequest): string {
  return createHmac('sha256', serverKey('idempotency'))
    .update(`${request.event.requestContext.http.method} ${request.event.rawPath}\n`)
    .update(rawBody(request.event))
    .digest('base64url');
}

function sameFingerprint(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}

export const idempotency = (): HttpMiddleware => ({
  before: async (request) => {
    const idempotencyKey = header(request.event, 'idempotency-key');
    if (idempotencyKey === undefined) return undefined;
    if (!KEY_PATTERN.test(idempotencyKey)) throw invalidField('Idempotency-Key', 'must be 1 to 255 visible ASCII characters');
    const scope = `${request.context.apiKey?.apiKey ?? 'anonymous'}#${createHash('sha256').update(idempotencyKey).digest('base64url')}`;
    const print = fingerprint(request);
    const previous = await store.begin(scope, print);
    if (!previous) {
      taken.set(request, scope);
      return undefined;
    }
    if (!sameFingerprint(previous.fingerprint, print)) throw new HttpProblem(409, 'this Idempotency-Key was used with another request');
    if (previous.state !== 'DONE' || !previous.outcome) throw new HttpProblem(409, 'a request with this Idempotency-Key is still running; retry later');
    // The recorded answer, as it was: the handler does not run again.
    return { ...previous.outcome, headers: { ...previous.outcome.headers, 'Idempotent-Replayed': 'true' } };
  },
  after: async (request) => {
    const scope = taken.get(request);
    if (scope && request.response) await store.complete(scope, request.response);
  },
  onError: async (request) => {
    const scope = taken.get(request);
    if (!scope) return;
    const response = problemResponse(toProblem(request.error));
    if ((response.statusCode ?? 500) >= 500) await store.release(scope);
    else await store.complete(scope, response);
  },
});
