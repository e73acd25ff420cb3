/**
 * A typed client of the store API: openapi-fetch's `GET`/`POST`/`PUT`/`DELETE`, typed by the API's
 * own OpenAPI document (schema.ts, generated), with what every integration otherwise writes by hand:
 * each request signed (HMAC-SHA1 of the bytes sent, WebCrypto: Node 20+ and browsers alike); an
 * `Idempotency-Key` on every create and batch, kept across its retries; retries with backoff and
 * jitter on network errors, 429, 503 and a 409 that says its key's first attempt is still running
 * (with `Retry-After`), honouring `Retry-After`, for requests safe to repeat only;
 * a time-out per attempt and the caller's `AbortSignal`; problems thrown as `StoreApiError`;
 * `paginate` and `followChanges` as async iterators; `batch` for any number of rows.
 * `verifyWebhook` is in `@store-api/client/webhooks`.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, paths };

export interface StoreClientOptions {
  /** The API's base URL, without `/api`: `https://abc.execute-api.eu-west-1.amazonaws.com`, `http://127.0.0.1:3000`. */
  baseUrl: string;
  apiKey: string;
  /** The key's secure key: 48 hexadecimal characters. */
  secureKey: string;
  /** Attempts of a request safe to repeat, the first included (default 4). */
  attempts?: number;
  /** How long one attempt may take, in ms (default 15 000). */
  timeoutMs?: number;
  /** The longest wait between two attempts, Retry-After included, in ms (default 60 000). */
  maxDelayMs?: number;
  /** The fetch to send with (default: the platform's). */
  fetch?: typeof fetch;
}

/** A problem the API answered (RFC 9457), with its machine-readable fields. */
export class StoreApiError extends Error {
  readonly status: number;
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  /** The fields at fault, for a 400: `{ field: 'rows[3].price', message: '...' }`. */
  readonly errors: readonly { field: string; message: string }[];
  /** Seconds to wait, when the API said so (429, 503). */
  readonly retryAfter: number | undefined;

  constructor(status: number, problem: Partial<components['schemas']['Problem']>, retryAfter?: number) {
    super(problem.detail ?? `the API answered ${status}`);
    this.name = 'StoreApiError';
    this.status = status;
    this.type = problem.type ?? 'about:blank';
    this.title = problem.title ?? '';
    this.detail = problem.detail ?? '';
    this.errors = problem.errors ?? [];
    this.retryAfter = retryAfter;
  }

  static async from(response: Response): Promise<StoreApiError> {
    const problem = (await response
      .clone()
      .json()
      .catch(() => ({}))) as Partial<components['schemas']['Problem']>;
    return new StoreApiError(response.status, problem, retryAfterOf(response));
  }
}

const retryAfterOf = (response: Response): number | undefined => {
  const value = Number(response.headers.get('Retry-After'));
  return Number.isFinite(value) && value >= 0 && response.headers.has('Retry-After') ? value : undefined;
};

const bytesOfHex = (hex: string): Uint8Array<ArrayBuffer> => Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
const hexOf = (bytes: ArrayBuffer): string => [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, '0')).join('');

/** The lowercase hex HMAC-SHA1 of the bytes sent, keyed with the secure key's bytes: the API's `sign`. */
export async function sign(secureKey: string, body: Uint8Array<ArrayBuffer>): Promise<string> {
  const key = await crypto.subtle.importKey('raw', bytesOfHex(secureKey), { name: 'HMAC', hash: 'SHA-1' }, false, ['sign']);
  return hexOf(await crypto.subtle.sign('HMAC', key, body));
}

/** A create (a POST to a collection) or a batch: it takes an Idempotency-Key, so it may be repeated. Not checkLogin (a read), nor a webhook's create (its answer holds a secret shown once). */
const isCreate = (method: string, path: string): boolean => method === 'POST' && /^\/api\/(?!webhooks$)[a-z-]+(\/batch)?$/.test(path);

/** Whether a request may be sent again without changing what it does: reads, PUT and DELETE (If-Match or not, the same state), and keyed creates. */
const safeToRepeat = (method: string, path: string): boolean => ['GET', 'HEAD', 'PUT', 'DELETE'].includes(method) || isCreate(method, path) || path === '/api/customers/checkLogin';

/** Full jitter on an exponential window (100 ms, 200 ms, ...), or what Retry-After asks, at most `maxMs`. */
const delayOf = (attempt: number, retryAfterSeconds: number | undefined, maxMs: number): number =>
  Math.min(maxMs, retryAfterSeconds !== undefined ? retryAfterSeconds * 1000 : Math.random() * 100 * 2 ** attempt);

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}

/** The fetch every request goes through: signed, keyed when a create, retried when safe. */
function storeFetch(options: Required<Omit<StoreClientOptions, 'baseUrl'>>): (request: Request) => Promise<Response> {
  return async (request) => {
    const body = new Uint8Array(await request.arrayBuffer());
    const url = new URL(request.url);
    url.searchParams.set('sign', await sign(options.secureKey, body));
    const headers = new Headers(request.headers);
    headers.set('Authorization', `Token ${options.apiKey}`);
    if (isCreate(request.method, url.pathname) && !headers.has('Idempotency-Key')) headers.set('Idempotency-Key', crypto.randomUUID());
    const repeatable = safeToRepeat(request.method, url.pathname);
    for (let attempt = 1; ; attempt++) {
      const signal = AbortSignal.any([request.signal, AbortSignal.timeout(options.timeoutMs)]);
      let response: Response;
      try {
        response = await options.fetch(url, { method: request.method, headers, ...(body.length ? { body } : {}), signal });
      } catch (error) {
        if (request.signal.aborted || !repeatable || attempt >= options.attempts) throw error;
        await pause(delayOf(attempt, undefined, options.maxDelayMs), request.signal);
        continue;
      }
      // A 409 with Retry-After is a keyed create whose earlier attempt is still running (a retry met it): wait, then ask again.
      const later = response.status === 429 || response.status === 503 || (response.status === 409 && response.headers.has('Retry-After'));
      if (!repeatable || attempt >= options.attempts || !later) return response;
      await response.body?.cancel();
      await pause(delayOf(attempt, retryAfterOf(response), options.maxDelayMs), request.signal);
    }
  };
}

type Get<P extends keyof paths> = paths[P] extends { get: infer Operation } ? Operation : never;
/** A list's row: what its 200 answers an array of. */
export type RowOf<P extends keyof paths> = Get<P> extends { responses: { 200: { content: { 'application/json': (infer Row)[] } } } } ? Row : never;
/** The paths whose GET answers a page of rows with a cursor. */
export type ListPath = { [P in keyof paths]: Get<P> extends { parameters: { query?: { cursor?: string } } } ? (RowOf<P> extends never ? never : P) : never }[keyof paths];
type ListQuery<P extends ListPath> = Omit<NonNullable<Get<P> extends { parameters: { query?: infer Query } } ? Query : never>, 'cursor' | 'offset'>;

export type ChangeRow = RowOf<'/api/changes'>;

type Post<P extends keyof paths> = paths[P] extends { post: infer Operation } ? Operation : never;
/** The batch routes: `/api/products/batch`, `/api/customers/batch`, `/api/categories/batch`. */
export type BatchPath = Extract<keyof paths, `/api/${string}/batch`>;
/** One result of a batch: the row's status, id, and its loop row or its problem. */
export type BatchResultOf<P extends BatchPath> = Post<P> extends { responses: { 200: { content: { 'application/json': (infer Result)[] } } } } ? Result : never;

/** The most rows one batch request takes (docs/batches-and-client.md). */
export const BATCH_ROWS = 100;

export interface BatchOptions {
  /** Rounds of sending again the rows answered 429 or 503 (default 5). */
  rounds?: number;
  /** The wait before a round when the API named none, in ms (default 1 000). */
  pauseMs?: number;
  signal?: AbortSignal;
}

export interface FollowOptions {
  /** Where to start: a cursor handed to `onCursor` before, or `now`. */
  cursor: string;
  /** Called with the cursor after each page's rows were yielded: keep it, and a restart from it sees each change at least once. */
  onCursor?: (cursor: string) => void | Promise<void>;
  /** Only the changes of one resource (`product`, `category`...). */
  resource?: string;
  /** Changes a page (default 100). */
  limit?: number;
  /** The wait after a page with nothing new, in ms (default 1 000). */
  pollMs?: number;
  /** Ends the iteration. */
  signal?: AbortSignal;
}

/**
 * The client: openapi-fetch's typed methods, and what an integration otherwise writes by hand. Its
 * type is spelled out (not inferred) so that the published declarations name `Client<paths>`, which
 * a strict consumer (`skipLibCheck: false`) accepts, rather than openapi-fetch's inner types.
 */
export interface StoreClient {
  GET: Client<paths>['GET'];
  POST: Client<paths>['POST'];
  PUT: Client<paths>['PUT'];
  DELETE: Client<paths>['DELETE'];
  /** Every row of a list, a page at a time, following `X-Next-Cursor`. */
  paginate<P extends ListPath>(path: P, query?: ListQuery<P>): AsyncGenerator<RowOf<P>>;
  /** Any number of rows through a batch route (see its implementation below). */
  batch<P extends BatchPath>(path: P, rows: readonly unknown[], options?: BatchOptions): Promise<BatchResultOf<P>[]>;
  /** The change feed from a cursor, for ever (until `signal`). */
  followChanges(follow: FollowOptions): AsyncGenerator<ChangeRow>;
  /** An ERP's stock sync: each sale element's stock set, found by its reference (see its implementation below). */
  syncStock(levels: readonly StockLevel[], options?: BatchOptions): Promise<BatchResultOf<'/api/pse/batch'>[]>;
}

/** A sale element's stock as an ERP knows it: its reference and how many there are (a decimal, as the API takes it). */
export interface StockLevel {
  reference: string;
  quantity: number | string;
}

export function createStoreClient(options: StoreClientOptions): StoreClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/$/, ''),
    fetch: storeFetch({
      apiKey: options.apiKey,
      secureKey: options.secureKey,
      attempts: options.attempts ?? 4,
      timeoutMs: options.timeoutMs ?? 15_000,
      maxDelayMs: options.maxDelayMs ?? 60_000,
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
    }),
  });
  client.use({
    async onResponse({ response }) {
      if (!response.ok) throw await StoreApiError.from(response);
      return undefined;
    },
  });

  /** A list's page from a cursor (none: the first), and the cursor of the next. */
  async function page(path: string, query: Record<string, unknown>, signal?: AbortSignal): Promise<{ rows: unknown[]; next: string | undefined }> {
    // The paths are typed by the callers' signatures: here one GET serves them all.
    const get = client.GET as (path: string, init: { params: { query: Record<string, unknown> }; signal?: AbortSignal }) => Promise<{ data?: unknown; response: Response }>;
    const { data, response } = await get(path, { params: { query }, ...(signal ? { signal } : {}) });
    return { rows: (data as unknown[] | undefined) ?? [], next: response.headers.get('X-Next-Cursor') ?? undefined };
  }

  /** One batch request of `rows`, its results in their order (the whole request retried as any keyed create). */
  async function sendBatch(path: BatchPath, rows: readonly unknown[], signal?: AbortSignal): Promise<{ results: Array<{ INDEX: number; STATUS: number }>; retryAfter: number | undefined }> {
    const post = client.POST as (path: string, init: { body: { rows: readonly unknown[] }; signal?: AbortSignal }) => Promise<{ data?: unknown; response: Response }>;
    const { data, response } = await post(path, { body: { rows }, ...(signal ? { signal } : {}) });
    return { results: data as Array<{ INDEX: number; STATUS: number }>, retryAfter: retryAfterOf(response) };
  }

  return {
    GET: client.GET,
    POST: client.POST,
    PUT: client.PUT,
    DELETE: client.DELETE,

    /** Every row of a list, a page at a time, following `X-Next-Cursor`. */
    async *paginate<P extends ListPath>(path: P, query: ListQuery<P> = {} as ListQuery<P>): AsyncGenerator<RowOf<P>> {
      let cursor: string | undefined;
      do {
        const { rows, next } = await page(path, { ...(query as object), ...(cursor ? { cursor } : {}) });
        for (const row of rows) yield row as RowOf<P>;
        cursor = next;
      } while (cursor);
    },

    /**
     * Any number of rows through a batch route: sent in batches of 100, one after another (so that
     * rows of one record in different batches never race); the rows answered 429 or 503 (not
     * applied, or unknown under the batch's own Idempotency-Key) sent again, in a batch of their own,
     * after Retry-After, for `rounds` rounds at most. One result per row, in the rows' order, `INDEX`
     * its place in `rows`. A whole batch refused (400, 403, 409...) throws its StoreApiError.
     */
    async batch<P extends BatchPath>(path: P, rows: readonly unknown[], batchOptions: BatchOptions = {}): Promise<BatchResultOf<P>[]> {
      const results: Array<{ INDEX: number; STATUS: number } | undefined> = new Array(rows.length);
      let pending = rows.map((_, index) => index);
      const rounds = batchOptions.rounds ?? 5;
      for (let round = 0; pending.length && round <= rounds; round++) {
        let wait: number | undefined;
        const again: number[] = [];
        for (let start = 0; start < pending.length; start += BATCH_ROWS) {
          const chunk = pending.slice(start, start + BATCH_ROWS);
          const answer = await sendBatch(
            path,
            chunk.map((index) => rows[index]),
            batchOptions.signal,
          );
          wait = answer.retryAfter ?? wait;
          for (const result of answer.results) {
            const index = chunk[result.INDEX];
            if (index === undefined) throw new Error(`the batch answered row ${result.INDEX}, which it was not sent`);
            results[index] = { ...result, INDEX: index };
            if (result.STATUS === 429 || result.STATUS === 503) again.push(index);
          }
        }
        pending = again;
        if (pending.length && round < rounds)
          await pause(Math.min(options.maxDelayMs ?? 60_000, wait !== undefined ? wait * 1000 : (batchOptions.pauseMs ?? 1_000)), batchOptions.signal ?? new AbortController().signal);
      }
      return results as BatchResultOf<P>[];
    },

    /**
     * An ERP's stock sync (docs/api.md): each level an upsert of `POST /api/pse/batch` that sets the
     * stock of the sale element its reference names, through `batch` (batches of 100, the rows
     * answered 429 or 503 sent again). A reference no sale element has is that row's 400: a sync sets
     * stock, it does not make variants. One result per level, in their order.
     */
    syncStock(levels: readonly StockLevel[], batchOptions: BatchOptions = {}): Promise<BatchResultOf<'/api/pse/batch'>[]> {
      return this.batch(
        '/api/pse/batch',
        levels.map(({ reference, quantity }) => ({ op: 'upsert', reference, quantity })),
        batchOptions,
      );
    },

    /**
     * The change feed from `cursor`, for ever (until `signal`): each change once in a run, the
     * cursor handed to `onCursor` after each page, waiting `pollMs` when there is nothing new.
     */
    async *followChanges(follow: FollowOptions): AsyncGenerator<ChangeRow> {
      let cursor = follow.cursor;
      while (!follow.signal?.aborted) {
        const { rows, next } = await page('/api/changes', { cursor, limit: follow.limit ?? 100, ...(follow.resource ? { resource: follow.resource } : {}) }, follow.signal);
        for (const row of rows) yield row as ChangeRow;
        if (next) {
          cursor = next;
          await follow.onCursor?.(cursor);
        }
        if (!rows.length) await pause(follow.pollMs ?? 1_000, follow.signal ?? new AbortController().signal).catch(() => undefined);
      }
    },
  };
}
