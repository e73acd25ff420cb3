/**
 * Idempotent creates (docs/conventions.md). A POST with `Idempotency-Key` takes that key, scoped to the
 * caller's API key, with a lease as long as its time budget; the create's transaction records its
 * row under the key, on condition that the lease is still this request's (lib/db/idempotency-store.ts).
 * So whichever attempt wins — a first one that timed out, crashed or got a 503, or its retry — the
 * record is written exactly once, and a retry with the same request replays the answer.
 *   - same key, same request (method, path, query string, body), within 24 h: the first answer;
 *   - same key, another request: 409; the first attempt still running: 409 + Retry-After;
 *   - a refusal (4xx) is recorded and replayed too; a 5xx frees the key at once (or its lease ends),
 *     except a batch's, which keeps the key for the same request (`keepOnFailure`): its rows'
 *     markers, made under the request's fingerprint, speak for that request alone.
 * The request is kept only as an HMAC under a server key.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { defineIdempotencyStore, type Lease } from '../db/idempotency-store.js';
import type { OutcomeRecorder, WriteStep } from '../db/transactions.js';
import { invalidField } from '../errors.js';
import { log } from '../log.js';
import type { Row } from '../row.js';
import { serverKey } from '../secrets.js';
import { budgetOf } from './budget.js';
import { problemResponse, toProblem } from './errors.js';
import { HttpProblem } from './problem.js';
import { header, rawBody, type HttpMiddleware, type HttpRequest, type HttpResponse } from './types.js';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
const KEY_PATTERN = /^[\x21-\x7E]{1,255}$/;
/** A lease outlives its request's budget by this much, so that it never ends while the request may still write. */
const LEASE_MARGIN_MS = 1_000;

/**
 * What a key's record holds: the row a create answered, as JSON text (a DynamoDB map keeps no order
 * of its keys, and a replay is the first answer byte for byte), a refusal's or a batch's response,
 * or, for a response too large for the record's item, how many gzipped parts of it lie beside.
 */
type Outcome = { rowJson: string } | { response: HttpResponse } | { responseParts: number };

/** A response kept in the record itself up to this size (an item holds 400 KB); past it, gzipped in parts. */
const INLINE_RESPONSE_BYTES = 256 * 1024;
/** One part of a large response: an item of its own. */
const PART_BYTES = 350 * 1024;

const store = defineIdempotencyStore<Outcome>(IDEMPOTENCY_TTL_SECONDS);

async function fingerprint(request: HttpRequest): Promise<string> {
  const { requestContext, rawPath, rawQueryString } = request.event;
  return createHmac('sha256', await serverKey('idempotency'))
    .update(`${requestContext.http.method} ${rawPath}?${rawQueryString ?? ''}\n`)
    .update(rawBody(request.event))
    .digest('base64url');
}

function sameFingerprint(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}

/** What records a create's row (the outcome its operation names) under the key whose lease this request holds. */
export const outcomeRecorder =
  (lease: Lease): OutcomeRecorder =>
  (row) =>
    store.recordStep(lease, { rowJson: JSON.stringify(row) });

/**
 * Records a whole answer (a batch's) under the key whose lease this request holds, for a retry to
 * replay, whatever its size: past what the record's item holds, gzipped in parts beside it.
 */
export async function recordAnswer(lease: Lease, response: HttpResponse): Promise<void> {
  const json = JSON.stringify(response);
  if (Buffer.byteLength(json) <= INLINE_RESPONSE_BYTES) return store.complete(lease, { response });
  const packed = gzipSync(json);
  const parts = Array.from({ length: Math.ceil(packed.length / PART_BYTES) }, (_, k) => packed.subarray(k * PART_BYTES, (k + 1) * PART_BYTES));
  await store.writeParts(lease, parts);
  await store.complete(lease, { responseParts: parts.length });
}

/** The step that marks row `index` of a batch applied, under the batch's lease (RowApplied when an attempt did before). */
export const batchRowMarker = (lease: Lease, index: number, row: Row | undefined): WriteStep => store.rowMarkerStep(lease, index, row && JSON.stringify(row));

/** The rows of this batch that earlier attempts of the same request applied, with the row each recorded. */
export async function appliedBatchRows(lease: Lease, count: number): Promise<Map<number, Row | undefined>> {
  const applied = await store.appliedRows(lease, count);
  return new Map([...applied].map(([index, marker]) => [index, marker.rowJson === undefined ? undefined : (JSON.parse(marker.rowJson) as Row)]));
}

/** The answer a record holds: its row as the route answers it (`replay`), or the response it recorded. */
async function recordedAnswer(scope: string, found: { fingerprint: string; outcome: Outcome }, replay: ((row: Row) => HttpResponse) | undefined): Promise<HttpResponse> {
  const { outcome } = found;
  if ('rowJson' in outcome && replay) return replay(JSON.parse(outcome.rowJson) as Row);
  if ('responseParts' in outcome) return JSON.parse(gunzipSync(Buffer.concat(await store.readParts(scope, found.fingerprint, outcome.responseParts))).toString('utf8')) as HttpResponse;
  return (outcome as { response: HttpResponse }).response;
}

export interface IdempotencyOptions {
  /** Turns a recorded row back into the answer the create gave (a batch records whole answers: none). */
  replay?: (row: Row) => HttpResponse;
  /**
   * After a failure (5xx), keep the key for this request instead of freeing it: a batch may have
   * applied rows that only a retry of the same request may finish; another request is then a 409.
   */
  keepOnFailure?: boolean;
}

export const idempotency = ({ replay, keepOnFailure = false }: IdempotencyOptions = {}): HttpMiddleware => ({
  before: async (request) => {
    const idempotencyKey = header(request.event, 'idempotency-key');
    if (idempotencyKey === undefined) return undefined;
    if (!KEY_PATTERN.test(idempotencyKey)) throw invalidField('Idempotency-Key', 'must be 1 to 255 visible ASCII characters');
    const scope = `${request.context.apiKey?.apiKey ?? 'anonymous'}#${createHash('sha256').update(idempotencyKey).digest('base64url')}`;
    const print = await fingerprint(request);
    const taken = await store.begin(scope, print, budgetOf(request.context) + LEASE_MARGIN_MS);
    if ('lease' in taken) {
      request.context.idempotencyLease = taken.lease;
      return undefined;
    }
    const { found } = taken;
    if (!sameFingerprint(found.fingerprint, print)) throw new HttpProblem(409, 'this Idempotency-Key was used with another request');
    if (found.state !== 'DONE' || !found.outcome) {
      throw new HttpProblem(409, 'a request with this Idempotency-Key is still running; retry later', {
        headers: { 'Retry-After': String(Math.max(1, Math.ceil(found.leaseRemainingMs / 1000))) },
      });
    }
    // The recorded answer: the handler does not run again.
    const answer = await recordedAnswer(scope, { fingerprint: found.fingerprint, outcome: found.outcome }, replay);
    return { ...answer, headers: { ...answer.headers, 'Idempotent-Replayed': 'true' } };
  },
  onError: async (request) => {
    const lease = request.context.idempotencyLease;
    if (!lease) return;
    const response = problemResponse(toProblem(request.error));
    try {
      if ((response.statusCode ?? 500) >= 500) await (keepOnFailure ? store.abandon(lease) : store.release(lease));
      else await store.complete(lease, { response });
    } catch (error) {
      // DynamoDB is out of reach: the lease ends on its own, and the request's own answer stands.
      log('warn', 'could not settle an idempotency lease', { error: error instanceof Error ? error.name : String(error) });
    }
  },
});

/** For a create that refuses Idempotency-Key (`refusesIdempotencyKey`): a request that sends one is a 400 saying why, before anything is written. */
export const refusingIdempotencyKey = (why: string): HttpMiddleware => ({
  before: async (request) => {
    if (header(request.event, 'idempotency-key') !== undefined) throw invalidField('Idempotency-Key', why);
    return undefined;
  },
});
