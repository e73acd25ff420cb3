/**
 * A stand-in for an OpenSearch Serverless collection on 127.0.0.1: the subset of OpenSearch's API
 * the search engine (lib/opensearch/engine.ts) uses, answering as OpenSearch documents it, and
 * refusing with a 400 whatever it does not speak, so that the engine cannot rely on more.
 *   indexes   PUT /<index> (400 if it exists), DELETE /<index> (404 if it does not)
 *   documents PUT, GET, DELETE /<index>/_doc/<id>; POST /_bulk (`index`, `delete`); an index is
 *             made on a document's first write, as OpenSearch's automatic index creation does
 *   search    POST /<index>/_search: `bool` (filter, must, should with minimum_should_match,
 *             must_not), `term`, `terms`, `range`, `wildcard` on keywords (texts over 8 191
 *             characters are not indexed, as `ignore_above` says); sorts by field or by the engine's
 *             script (the first of its paths a document has), missing values last; `from`/`size`
 *             within max_result_window, `search_after`, exact totals
 * Every request's SigV4 signature is checked on its own (node:crypto, not the SDK's signer): the
 * payload's hash must be the body's, the signature the one its credentials make; else a 403, as AWS.
 * Faults on command: `fail(status, times)` answers the next requests with that status; `stall(times)`
 * never answers them (until closed).
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

type Json = Record<string, unknown>;
type Value = string | number;

export interface OpenSearchStandIn {
  url: string;
  /** Requests answered or refused, each `METHOD /path status`. */
  log: string[];
  fail(status: number, times: number): void;
  stall(times: number): void;
  close(): Promise<void>;
}

const KEYWORD_LIMIT = 8191;
const MAX_RESULT_WINDOW = 10_100;

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    reason: string,
  ) {
    super(reason);
  }
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/** Checks a request's SigV4 signature as AWS does, with the secret of the access key it names. */
function checkSignature(request: IncomingMessage, body: Buffer, secrets: ReadonlyMap<string, string>): void {
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
    String(request.headers.authorization ?? ''),
  );
  if (!match) throw new Refusal(403, 'MissingAuthenticationTokenException', 'no SigV4 authorization');
  const [, accessKey = '', day = '', region = '', service = '', signedHeaders = '', signature = ''] = match;
  const secret = secrets.get(accessKey);
  if (!secret) throw new Refusal(403, 'UnrecognizedClientException', 'the security token included in the request is invalid');
  const payloadHash = String(request.headers['x-amz-content-sha256'] ?? '');
  if (payloadHash !== sha256(body)) throw new Refusal(403, 'InvalidSignatureException', 'x-amz-content-sha256 is not the hash of the payload');
  const names = signedHeaders.split(';');
  if (!names.includes('host') || !names.includes('x-amz-date')) throw new Refusal(403, 'InvalidSignatureException', 'host and x-amz-date must be signed');
  const path = (request.url ?? '/').split('?')[0] ?? '/';
  if (!/^[A-Za-z0-9/_.~-]*$/.test(path)) throw new Refusal(400, 'illegal_argument_exception', 'the stand-in only speaks plain paths');
  const amzDate = String(request.headers['x-amz-date'] ?? '');
  const canonical = [request.method, path, '', ...names.map((name) => `${name}:${String(request.headers[name] ?? '').trim()}`), '', signedHeaders, payloadHash].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', amzDate, `${day}/${region}/${service}/aws4_request`, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, day), region), service), 'aws4_request');
  if (createHmac('sha256', key).update(toSign).digest('hex') !== signature)
    throw new Refusal(403, 'InvalidSignatureException', 'The request signature we calculated does not match the signature you provided');
}

/** The values a document has at a path, as a keyword or number field indexes them. */
function valuesAt(source: Json, path: string): Value[] {
  let at: unknown = source;
  for (const part of path.split('.')) at = at && typeof at === 'object' && !Array.isArray(at) ? (at as Json)[part] : undefined;
  const values = (Array.isArray(at) ? at : [at]).filter((value): value is Value => typeof value === 'string' || typeof value === 'number');
  return path.startsWith('t.') ? values.filter((value) => String(value).length <= KEYWORD_LIMIT) : values;
}

/** Keywords compare as UTF-8 bytes (code points), numbers as numbers. */
function compare(a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const [x, y] = [Buffer.from(String(a)), Buffer.from(String(b))];
  return Buffer.compare(x, y);
}

const wildcardRegExp = (pattern: string) =>
  new RegExp(
    `^${pattern.replace(/\\(.)|([*?])|([.+^${}()|[\]\\/])/gsu, (_, escaped?: string, wild?: string, special?: string) => (escaped !== undefined ? escaped.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&') : wild === '*' ? '.*' : wild === '?' ? '.' : `\\${special}`))}$`,
    'su',
  );

function onlyKey(clause: Json, what: string): [string, unknown] {
  const entries = Object.entries(clause);
  if (entries.length !== 1) throw new Refusal(400, 'parsing_exception', `[${what}] query malformed`);
  return entries[0]!;
}

/** Whether a document matches a query clause (filter context: no scores). */
function matchesClause(source: Json, clause: Json): boolean {
  const [kind, body] = onlyKey(clause, 'query');
  const spec = body as Json;
  switch (kind) {
    case 'match_all':
      return true;
    case 'bool': {
      const list = (key: string) => (spec[key] === undefined ? [] : Array.isArray(spec[key]) ? (spec[key] as Json[]) : [spec[key] as Json]);
      for (const key of Object.keys(spec))
        if (!['filter', 'must', 'should', 'must_not', 'minimum_should_match'].includes(key)) throw new Refusal(400, 'parsing_exception', `[bool] query does not support [${key}]`);
      const should = list('should');
      const minimum = spec.minimum_should_match !== undefined ? Number(spec.minimum_should_match) : list('filter').length + list('must').length ? 0 : should.length ? 1 : 0;
      return (
        [...list('filter'), ...list('must')].every((inner) => matchesClause(source, inner)) &&
        !list('must_not').some((inner) => matchesClause(source, inner)) &&
        should.filter((inner) => matchesClause(source, inner)).length >= minimum
      );
    }
    case 'term': {
      const [path, value] = onlyKey(spec, 'term');
      const wanted = value && typeof value === 'object' ? (value as Json).value : value;
      return valuesAt(source, path).some((have) => have === wanted);
    }
    case 'terms': {
      const [path, values] = onlyKey(spec, 'terms');
      if (!Array.isArray(values)) throw new Refusal(400, 'parsing_exception', '[terms] query requires an array of values');
      return valuesAt(source, path).some((have) => values.includes(have));
    }
    case 'range': {
      const [path, bounds] = onlyKey(spec, 'range');
      const { gte, lte, gt, lt, ...rest } = bounds as Record<string, Value | undefined>;
      if (Object.keys(rest).length) throw new Refusal(400, 'parsing_exception', `[range] query does not support [${Object.keys(rest)[0]}]`);
      return valuesAt(source, path).some(
        (have) =>
          (gte === undefined || compare(have, gte) >= 0) &&
          (lte === undefined || compare(have, lte) <= 0) &&
          (gt === undefined || compare(have, gt) > 0) &&
          (lt === undefined || compare(have, lt) < 0),
      );
    }
    case 'wildcard': {
      const [path, value] = onlyKey(spec, 'wildcard');
      const pattern = wildcardRegExp(String((value as Json).value));
      return valuesAt(source, path).some((have) => typeof have === 'string' && pattern.test(have));
    }
    default:
      throw new Refusal(400, 'parsing_exception', `unknown query [${kind}] (the stand-in speaks bool, term, terms, range, wildcard)`);
  }
}

interface SortKey {
  value: (source: Json) => Value | undefined;
  descending: boolean;
}

function sortKeys(sort: unknown): SortKey[] {
  if (!Array.isArray(sort)) throw new Refusal(400, 'parsing_exception', 'the stand-in wants a sort array');
  return sort.map((entry: Json) => {
    const [field, spec] = onlyKey(entry, 'sort');
    const { order = 'asc', ...rest } = spec as Json;
    if (field === '_script') {
      const { type, script } = rest as { type?: string; script?: { lang?: string; source?: string; params?: { paths?: string[] } } };
      // The one script the engine sends: a localized text read in its locale, else the fallback, else unlocalized.
      if (type !== 'string' || script?.lang !== 'painless' || !script.source?.includes('doc.containsKey(p)') || !Array.isArray(script.params?.paths))
        throw new Refusal(400, 'script_exception', 'the stand-in runs only the engine’s first-present-path script');
      const paths = script.params.paths;
      return { value: (source: Json) => paths.map((path) => valuesAt(source, path)[0]).find((value) => value !== undefined) ?? '', descending: order === 'desc' };
    }
    if (Object.keys(rest).length) throw new Refusal(400, 'parsing_exception', `the stand-in's sort takes [order] only, not [${Object.keys(rest)[0]}]`);
    return { value: (source: Json) => valuesAt(source, field)[0], descending: order === 'desc' };
  });
}

/** Two documents' sort values: each key in its order, a missing value last either way (OpenSearch's default). */
function compareSorted(a: (Value | undefined)[], b: (Value | undefined)[], keys: SortKey[]): number {
  for (const [i, key] of keys.entries()) {
    const [x, y] = [a[i], b[i]];
    if (x === undefined || y === undefined) {
      if (x !== y) return x === undefined ? 1 : -1;
      continue;
    }
    const order = compare(x, y);
    if (order) return key.descending ? -order : order;
  }
  return 0;
}

interface Index {
  documents: Map<string, Json>;
}

export async function startOpenSearchStandIn(credentials: { accessKeyId: string; secretAccessKey: string }): Promise<OpenSearchStandIn> {
  const secrets = new Map([[credentials.accessKeyId, credentials.secretAccessKey]]);
  const indexes = new Map<string, Index>();
  const log: string[] = [];
  const faults: (number | 'stall')[] = [];
  const held = new Set<Socket>();

  const indexNamed = (name: string, create: boolean): Index => {
    const found = indexes.get(name);
    if (found) return found;
    if (!create) throw new Refusal(404, 'index_not_found_exception', `no such index [${name}]`);
    const made = { documents: new Map<string, Json>() };
    indexes.set(name, made);
    return made;
  };

  function search(index: Index, body: Json): Json {
    const { query = { match_all: {} }, sort, size = 10, from, search_after: after, track_total_hits: _total, _source: _noSource, ...rest } = body;
    if (Object.keys(rest).length) throw new Refusal(400, 'parsing_exception', `the stand-in's search does not take [${Object.keys(rest)[0]}]`);
    if (after !== undefined && from !== undefined) throw new Refusal(400, 'illegal_argument_exception', '`from` parameter must be set to 0 when `search_after` is used');
    const start = Number(from ?? 0);
    if (start + Number(size) > MAX_RESULT_WINDOW) throw new Refusal(400, 'illegal_argument_exception', 'Result window is too large');
    const keys = sortKeys(sort);
    const matched = [...index.documents.entries()]
      .filter(([, source]) => matchesClause(source, query as Json))
      .map(([id, source]) => ({ id, sort: keys.map((key) => key.value(source)) }))
      .sort((a, b) => compareSorted(a.sort, b.sort, keys));
    const following = Array.isArray(after) ? matched.filter((hit) => compareSorted(hit.sort, after as Value[], keys) > 0) : matched;
    const hits = following.slice(after === undefined ? start : 0).slice(0, Number(size));
    return {
      took: 1,
      timed_out: false,
      hits: { total: { value: matched.length, relation: 'eq' }, max_score: null, hits: hits.map((hit) => ({ _id: hit.id, _score: null, sort: hit.sort.map((value) => value ?? null) })) },
    };
  }

  function bulk(body: string): Json {
    const lines = body.split('\n').filter(Boolean);
    const items: Json[] = [];
    for (let i = 0; i < lines.length; i++) {
      const [action, meta] = onlyKey(JSON.parse(lines[i]!) as Json, 'bulk');
      const { _index: name, _id: id } = meta as { _index: string; _id: string };
      if (action === 'index') {
        const index = indexNamed(name, true);
        const existed = index.documents.has(id);
        index.documents.set(id, JSON.parse(lines[++i]!) as Json);
        items.push({ index: { _index: name, _id: id, status: existed ? 200 : 201, result: existed ? 'updated' : 'created' } });
      } else if (action === 'delete') {
        const found = indexes.get(name)?.documents.delete(id) ?? false;
        items.push({ delete: { _index: name, _id: id, status: found ? 200 : 404, result: found ? 'deleted' : 'not_found' } });
      } else throw new Refusal(400, 'illegal_argument_exception', `the stand-in's bulk speaks index and delete, not [${action}]`);
    }
    return { took: 1, errors: items.some((item) => (Object.values(item)[0] as { status: number }).status >= 300), items };
  }

  function answer(method: string, path: string, body: string): [number, Json] {
    const parts = path.split('/').filter(Boolean);
    if (method === 'POST' && path === '/_bulk') return [200, bulk(body)];
    if (parts.length === 1 && method === 'PUT') {
      if (indexes.has(parts[0]!)) throw new Refusal(400, 'resource_already_exists_exception', `index [${parts[0]}] already exists`);
      indexNamed(parts[0]!, true);
      return [200, { acknowledged: true, index: parts[0] }];
    }
    if (parts.length === 1 && method === 'DELETE') {
      indexNamed(parts[0]!, false);
      indexes.delete(parts[0]!);
      return [200, { acknowledged: true }];
    }
    if (parts.length === 2 && parts[1] === '_search' && method === 'POST') return [200, search(indexNamed(parts[0]!, false), JSON.parse(body || '{}') as Json)];
    if (parts.length === 3 && parts[1] === '_doc') {
      const [name = '', , id = ''] = parts;
      if (method === 'PUT') {
        const index = indexNamed(name, true);
        const existed = index.documents.has(id);
        index.documents.set(id, JSON.parse(body) as Json);
        return [existed ? 200 : 201, { _index: name, _id: id, result: existed ? 'updated' : 'created' }];
      }
      const source = indexNamed(name, false).documents.get(id);
      if (method === 'GET') return source ? [200, { _index: name, _id: id, found: true, _source: source }] : [404, { _index: name, _id: id, found: false }];
      if (method === 'DELETE') {
        indexNamed(name, false).documents.delete(id);
        return [source ? 200 : 404, { _index: name, _id: id, result: source ? 'deleted' : 'not_found' }];
      }
    }
    throw new Refusal(400, 'illegal_argument_exception', `the stand-in does not speak ${method} ${path}`);
  }

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      const fault = faults.shift();
      if (fault === 'stall') {
        held.add(request.socket);
        log.push(`${request.method} ${path} stalled`);
        return;
      }
      let status: number;
      let json: Json;
      try {
        checkSignature(request, body, secrets);
        if (fault !== undefined) throw new Refusal(fault, fault === 429 ? 'too_many_requests' : 'internal_server_error', `a fault on command (${fault})`);
        [status, json] = answer(request.method ?? 'GET', path, body.toString('utf8'));
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        status = error.status;
        json = { error: { type: error.type, reason: error.message }, status };
      }
      log.push(`${request.method} ${path} ${status}`);
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    fail: (status, times) => faults.push(...Array.from({ length: times }, () => status)),
    stall: (times) => faults.push(...Array.from({ length: times }, () => 'stall' as const)),
    close: async () => {
      for (const socket of held) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
