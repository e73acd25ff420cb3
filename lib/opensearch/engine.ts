/**
 * The search index on AWS (docs/lists.md): an Amazon OpenSearch Serverless collection of type
 * SEARCH, one index per kind, queried over HTTPS with requests signed by the function's role (SigV4,
 * service `aoss`, sign.ts): `fetch`, no OpenSearch client in the bundles. Each request ends with the
 * work's deadline (a list's time budget) and is tried again, with backoff, when the collection
 * throttles (429), fails (5xx) or does not answer. Documents are
 * indexed as the neutral model has them (`query.ts`): values under `v`, folded texts under `t` (a
 * keyword, which equality, `contains` (a wildcard) and sorting read), each text's words as the model
 * splits them under `w` (keywords, which `any_word` reads: no analyzer of OpenSearch's decides what a
 * word is, so that a term finds what it finds in the local index), and the locales a record has
 * texts in under `locales`, which says when a localized text is read in the fallback. The feed position the index has followed to is a document of its own.
 */
import { IndexUnavailable, OutOfTime } from '../db/errors.js';
import type { FeedPosition } from '../db/feed.js';
import type { IndexWrite, SearchEngine } from '../db/lists/engine.js';
import { wordsOf, type FieldValue, type SearchAnswer, type SearchDocument, type SearchFilter, type SearchQuery } from '../db/lists/query.js';
import type { Position } from '../db/page.js';
import { fullJitter, type RetryPolicy, retrying } from '../db/retry.js';
import { currentScope } from '../db/scope.js';
import { cachedCredentials, defaultProvider } from '../lambda-credentials.js';
import { requestSigner, type SignerOptions } from './sign.js';

type Json = Record<string, unknown>;

/** Texts longer than this are kept for `any_word` only, by their words (a keyword holds at most 32 766 bytes). */
const KEYWORD_CHARACTERS = 8191;
const META_INDEX = 'store-meta';
export const indexOf = (kind: string): string => `store-${kind}`;

/**
 * A request throttled, failed or unanswered is tried again after a wait: 4 attempts over about a
 * second and a half at most, within the deadline (a list's 10 s budget leaves room for them).
 */
const RETRY: RetryPolicy = { attempts: 4, retryable: (error) => error instanceof IndexUnavailable, waitMs: fullJitter(100, 800) };
/** The longest one attempt waits for its answer when no deadline is nearer (the index's feed has none). */
const ATTEMPT_TIMEOUT_MS = 10_000;

/** Each index's mapping: values as they come, texts as keywords with a words subfield. */
export const INDEX_BODY: Json = {
  settings: { index: { max_result_window: 10_100 } },
  mappings: {
    dynamic_templates: [
      { texts: { path_match: 't.*', mapping: { type: 'keyword', ignore_above: KEYWORD_CHARACTERS } } },
      { words: { path_match: 'w.*', mapping: { type: 'keyword' } } },
      { strings: { path_match: 'v.*', match_mapping_type: 'string', mapping: { type: 'keyword' } } },
    ],
    properties: { id: { type: 'long' }, locales: { type: 'keyword' } },
  },
};

/** Where a text is indexed (`t`), or its words (`w`): under its field, and its locale when localized. */
const textPath = (field: string, locale: string | undefined, under: 't' | 'w' = 't') => (locale ? `${under}.${field}.${locale}` : `${under}.${field}`);
const valuePath = (field: string) => (field === 'id' ? 'id' : `v.${field}`);
/** A wildcard pattern that matches the term anywhere, its own wildcard characters escaped. */
const containing = (term: string) => `*${term.replace(/[\\*?]/g, (c) => `\\${c}`)}*`;

/** One text condition on a field (given the text's locale), read as the row shows it: in the locale when the record has it, else in the fallback; or unlocalized. */
function textClause(query: SearchQuery, condition: (locale: string | undefined) => Json): Json {
  const inLocale = { bool: { filter: [{ term: { locales: query.locale } }, condition(query.locale)] } };
  const inFallback = { bool: { must_not: [{ term: { locales: query.locale } }], filter: [condition(query.fallback)] } };
  return { bool: { should: [condition(undefined), inLocale, inFallback], minimum_should_match: 1 } };
}

export function filterClause(filter: SearchFilter, query: SearchQuery): Json {
  if (filter.kind === 'in') {
    const clause = { terms: { [valuePath(filter.field)]: filter.values } };
    return filter.not ? { bool: { must_not: [clause] } } : clause;
  }
  if (filter.kind === 'range') return { range: { [valuePath(filter.field)]: { ...(filter.min !== undefined ? { gte: filter.min } : {}), ...(filter.max !== undefined ? { lte: filter.max } : {}) } } };
  const { mode, term } = filter;
  const condition =
    (field: string) =>
    (locale: string | undefined): Json =>
      mode === 'equals'
        ? { term: { [textPath(field, locale)]: term } }
        : mode === 'contains'
          ? { wildcard: { [textPath(field, locale)]: { value: containing(term) } } }
          : { terms: { [textPath(field, locale, 'w')]: wordsOf(term) } };
  return { bool: { should: filter.fields.map((field) => textClause(query, condition(field))), minimum_should_match: 1 } };
}

/** The sort of a query: its value or text (a localized text through a script that reads the fallback), then the id. */
export function sortOf(query: SearchQuery): Json[] {
  const order = query.order.reverse ? 'desc' : 'asc';
  const { field, text } = query.order;
  const primary: Json = !text
    ? { [valuePath(field)]: { order } }
    : {
        _script: {
          type: 'string',
          order,
          script: {
            lang: 'painless',
            source: "for (String p : params.paths) { if (doc.containsKey(p) && doc[p].size() > 0) { return doc[p].value; } } return '';",
            params: { paths: [textPath(field, query.locale), textPath(field, query.fallback), textPath(field, undefined)] },
          },
        },
      };
  return [primary, { id: { order } }];
}

/** The request body of a query: its filters, sort, page and total. */
export function searchBody(query: SearchQuery): Json {
  return {
    size: query.limit + 1,
    ...(query.after ? { search_after: [...query.after] } : { from: query.offset }),
    track_total_hits: true,
    _source: false,
    query: { bool: { filter: query.filters.map((filter) => filterClause(filter, query)) } },
    sort: sortOf(query),
  };
}

/** A document as indexed. */
export function indexedDocument(document: SearchDocument): Json {
  const locales = new Set<string>();
  const words: Json = {};
  for (const [field, text] of Object.entries(document.texts)) {
    if (typeof text === 'string') words[field] = wordsOf(text);
    else {
      words[field] = Object.fromEntries(Object.entries(text).map(([locale, localized]) => [locale, wordsOf(localized)]));
      for (const locale of Object.keys(text)) locales.add(locale);
    }
  }
  return { id: document.id, v: document.values, t: document.texts, w: words, locales: [...locales] };
}

export interface OpenSearchOptions {
  /** The credentials to sign with: by default the function's role's, as Lambda hands them. */
  credentials?: SignerOptions['credentials'];
  region?: string;
}

export class OpenSearchEngine implements SearchEngine {
  private readonly url: URL;
  private readonly ensured = new Set<string>();
  private readonly sign: ReturnType<typeof requestSigner>;

  constructor(endpoint: string, options: OpenSearchOptions = {}) {
    this.url = new URL(endpoint);
    this.sign = requestSigner({
      credentials: options.credentials ?? cachedCredentials(defaultProvider()),
      region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
    });
  }

  private send(method: string, path: string, body?: string, contentType = 'application/json'): Promise<{ status: number; json: Json }> {
    return retrying(() => this.attempt(method, path, body, contentType), RETRY);
  }

  private async attempt(method: string, path: string, body: string | undefined, contentType: string): Promise<{ status: number; json: Json }> {
    const deadline = currentScope().deadline;
    if (deadline?.aborted) throw new OutOfTime(deadline.reason);
    const timeout = AbortSignal.timeout(ATTEMPT_TIMEOUT_MS);
    const headers = await this.sign({ method, path, host: this.url.host, body: body ?? '', headers: body !== undefined ? { 'content-type': contentType } : {} });
    let status: number;
    let text: string;
    try {
      const response = await fetch(new URL(path, this.url), { method, headers, signal: deadline ? AbortSignal.any([deadline, timeout]) : timeout, ...(body !== undefined ? { body } : {}) });
      status = response.status;
      text = await response.text();
    } catch (error) {
      if (deadline?.aborted) throw new OutOfTime(deadline.reason);
      throw new IndexUnavailable(error);
    }
    if (status === 429 || status >= 500) throw new IndexUnavailable(new Error(`OpenSearch answered ${status} to ${method} ${path}: ${text.slice(0, 300)}`));
    return { status, json: (text ? JSON.parse(text) : {}) as Json };
  }

  /** Creates an index the first time this container writes to it (a 400 "already exists" is fine). */
  private async ensure(index: string): Promise<void> {
    if (this.ensured.has(index)) return;
    await this.send('PUT', `/${index}`, JSON.stringify(index === META_INDEX ? {} : INDEX_BODY));
    this.ensured.add(index);
  }

  async query(query: SearchQuery): Promise<SearchAnswer> {
    const { status, json } = await this.send('POST', `/${indexOf(query.kind)}/_search`, JSON.stringify(searchBody(query)));
    if (status === 404) return { ids: [], positions: [], total: 0, more: false };
    if (status !== 200) throw new Error(`OpenSearch refused a query (${status}): ${JSON.stringify(json).slice(0, 300)}`);
    const hits = (json.hits as { total: { value: number }; hits: { _id: string; sort: FieldValue[] }[] }) ?? { total: { value: 0 }, hits: [] };
    const page = hits.hits.slice(0, query.limit);
    return {
      ids: page.map((hit) => Number(hit._id)),
      positions: page.map((hit): Position => [hit.sort[0] ?? '', Number(hit._id)]),
      total: hits.total.value,
      more: hits.hits.length > query.limit,
    };
  }

  async write(writes: readonly IndexWrite[], position: FeedPosition | undefined): Promise<void> {
    const lines: string[] = [];
    for (const { kind, put, remove } of writes) {
      await this.ensure(indexOf(kind));
      for (const id of remove) lines.push(JSON.stringify({ delete: { _index: indexOf(kind), _id: String(id) } }));
      for (const document of put) lines.push(JSON.stringify({ index: { _index: indexOf(kind), _id: String(document.id) } }), JSON.stringify(indexedDocument(document)));
    }
    if (lines.length) {
      const { json } = await this.send('POST', '/_bulk', `${lines.join('\n')}\n`, 'application/x-ndjson');
      const failed = ((json.items as Json[] | undefined) ?? []).map((item) => Object.values(item)[0] as { status: number }).filter((item) => item.status >= 300 && item.status !== 404);
      if (json.errors && failed.length) throw new Error(`OpenSearch refused ${failed.length} documents`);
    }
    await this.ensure(META_INDEX);
    if (position) await this.send('PUT', `/${META_INDEX}/_doc/position`, JSON.stringify(position));
    else await this.send('DELETE', `/${META_INDEX}/_doc/position`);
  }

  async position(): Promise<FeedPosition | undefined> {
    const { status, json } = await this.send('GET', `/${META_INDEX}/_doc/position`);
    return status === 200 && json.found ? (json._source as FeedPosition) : undefined;
  }

  async clear(kinds: readonly string[]): Promise<void> {
    await this.send('DELETE', `/${META_INDEX}/_doc/position`);
    for (const kind of kinds) await this.send('DELETE', `/${indexOf(kind)}`);
    this.ensured.clear();
  }
}
