/**
 * Both search indexes answer as the query model says (lib/db/lists/query.ts): random documents and
 * random queries (every filter kind and text mode, localized texts with their fallback, orders either
 * way, offsets and positions), each engine's ids, positions and totals compared with the model's own
 * filter and sort over the same documents. The local one is SQLite; the one on AWS, OpenSearch, is
 * run against a stand-in that speaks the part of OpenSearch's API it uses (test/support). And what
 * OpenSearch is asked for a query.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SearchEngine } from '../../lib/db/lists/engine.js';
import { comparePositions, fold, matches, positionIn, type SearchDocument, type SearchFilter, type SearchQuery } from '../../lib/db/lists/query.js';
import { SqliteSearchEngine } from '../../lib/local/search-sqlite.js';
import { OpenSearchEngine, searchBody } from '../../lib/opensearch/engine.js';
import { type OpenSearchStandIn, startOpenSearchStandIn } from '../support/opensearch-stand-in.js';

/** A small deterministic generator (mulberry32), so that a failure replays. */
function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  return { next, pick, int: (max: number) => Math.floor(next() * max) };
}

// A private-use character (U+E000) is no letter: it splits words, in both indexes as in the model.
const WORDS = ['crème', 'brûlée', 'chaise', 'Œuf', 'a', 'ab', 'table', 'über', 'zèbre', '𝒜stral', 'ça', 'e', 'jardin', 'ab\uE000table'];
const LOCALES = ['en_US', 'fr_FR'];

function documents(rnd: ReturnType<typeof random>, count: number): SearchDocument[] {
  const phrase = () => fold(Array.from({ length: 1 + rnd.int(3) }, () => rnd.pick(WORDS)).join(rnd.pick([' ', '-', ' '])));
  return Array.from({ length: count }, (_, i) => {
    const locales = LOCALES.filter((locale) => locale === 'en_US' || rnd.next() < 0.4);
    return {
      id: i + 1,
      values: { price: String(rnd.int(5) * 250_000).padStart(19, '0'), brand: rnd.int(4), at: `2026-0${1 + rnd.int(3)}-01T00:00:00.000Z` },
      texts: { ref: phrase(), title: Object.fromEntries(locales.map((locale) => [locale, phrase()])) },
    };
  });
}

function randomQuery(rnd: ReturnType<typeof random>): SearchQuery {
  const filters: SearchFilter[] = [];
  const kinds = ['in', 'notIn', 'range', 'text', 'none'] as const;
  for (let n = rnd.int(3); n > 0; n--) {
    const kind = rnd.pick(kinds);
    if (kind === 'in' || kind === 'notIn') filters.push({ kind: 'in', field: rnd.pick(['brand', 'id']), values: [rnd.int(4), rnd.int(8)], not: kind === 'notIn' });
    if (kind === 'range') filters.push({ kind: 'range', field: 'price', min: String(rnd.int(3) * 250_000).padStart(19, '0'), ...(rnd.next() < 0.5 ? { max: String(750_000).padStart(19, '0') } : {}) });
    if (kind === 'text')
      filters.push({
        kind: 'text',
        fields: rnd.next() < 0.5 ? ['title'] : ['ref', 'title'],
        mode: rnd.pick(['equals', 'contains', 'any_word'] as const),
        term: fold(rnd.pick([...WORDS, 'cre', 'rûl', 'e b', 'chaise jardin'])),
      });
  }
  const order = rnd.pick([
    { field: 'id', text: false },
    { field: 'price', text: false },
    { field: 'at', text: false },
    { field: 'title', text: true },
    { field: 'ref', text: true },
  ]);
  return { kind: 'things', locale: rnd.pick(LOCALES), fallback: 'en_US', filters, order: { ...order, reverse: rnd.next() < 0.5 }, limit: 1 + rnd.int(7), offset: rnd.int(5) };
}

/** Random queries asked of an engine holding random documents, each answer compared with the model's. */
async function answersAsTheModel(engine: SearchEngine): Promise<void> {
  const rnd = random(43);
  const docs = documents(rnd, 60);
  await engine.write([{ kind: 'things', put: docs, remove: [] }], { n: 1, i: 0 });
  await engine.write([{ kind: 'others', put: docs.slice(0, 5), remove: [] }], { n: 1, i: 0 });
  for (let round = 0; round < 300; round++) {
    const query = randomQuery(rnd);
    const model = docs
      .filter((doc) => matches(doc, query.filters, query))
      .map((doc) => positionIn(doc, query.order, query))
      .sort((a, b) => comparePositions(a, b, query.order));
    const page = model.slice(query.offset, query.offset + query.limit);
    const answer = await engine.query(query);
    const label = JSON.stringify(query);
    expect(answer.total, label).toBe(model.length);
    expect(answer.positions, label).toEqual(page);
    expect(answer.ids, label).toEqual(page.map((position) => position[1]));
    expect(answer.more, label).toBe(model.length > query.offset + query.limit);
    if (page.length) {
      const after = page.at(-1)!;
      const next = await engine.query({ ...query, offset: 0, after });
      expect(next.positions, `${label} after ${after}`).toEqual(model.slice(query.offset + page.length, query.offset + page.length + query.limit));
    }
  }
}

/** Documents put, one moved and one removed, the position noted, then all of it cleared. */
async function putsRemovesAndClears(engine: SearchEngine): Promise<void> {
  const [first, second] = documents(random(1), 2);
  await engine.write([{ kind: 'things', put: [first!, second!], remove: [] }], { n: 3, i: 1 });
  await engine.write([{ kind: 'things', put: [{ ...first!, texts: { ref: 'moved', title: {} } }], remove: [second!.id] }], { n: 4, i: 0 });
  const all = await engine.query({ kind: 'things', locale: 'en_US', fallback: 'en_US', filters: [], order: { field: 'ref', text: true, reverse: false }, limit: 10, offset: 0 });
  expect(all.positions).toEqual([['moved', first!.id]]);
  expect(await engine.position()).toEqual({ n: 4, i: 0 });
  await engine.clear(['things']);
  expect(await engine.position()).toBeUndefined();
  expect((await engine.query({ kind: 'things', locale: 'en_US', fallback: 'en_US', filters: [], order: { field: 'id', text: false, reverse: false }, limit: 10, offset: 0 })).total).toBe(0);
}

describe('the SQLite search index', () => {
  it('answers random queries as the query model does: ids, positions, totals, pages by offset and by position', async () => {
    const engine = new SqliteSearchEngine(':memory:');
    await answersAsTheModel(engine);
    engine.close();
  });

  it('puts and removes documents, keeps its position, and forgets both when cleared', async () => {
    const engine = new SqliteSearchEngine(':memory:');
    await putsRemovesAndClears(engine);
    engine.close();
  });

  it('empties a file of an older schema (words split otherwise), so that the index is rebuilt from the table', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'store-api-search-')), 'search.sqlite');
    const before = new SqliteSearchEngine(file);
    await before.write([{ kind: 'things', put: documents(random(2), 3), remove: [] }], { n: 5, i: 0 });
    before.close();
    const older = new DatabaseSync(file);
    older.exec('PRAGMA user_version = 0');
    older.close();
    const reopened = new SqliteSearchEngine(file);
    expect(await reopened.position()).toBeUndefined();
    expect((await reopened.query({ kind: 'things', locale: 'en_US', fallback: 'en_US', filters: [], order: { field: 'id', text: false, reverse: false }, limit: 10, offset: 0 })).total).toBe(0);
    reopened.close();
    const again = new SqliteSearchEngine(file);
    await again.write([], { n: 6, i: 0 });
    again.close();
    const kept = new SqliteSearchEngine(file);
    expect(await kept.position()).toEqual({ n: 6, i: 0 });
    kept.close();
  });
});

describe('the OpenSearch search index, against a stand-in of OpenSearch', () => {
  const credentials = { accessKeyId: 'AKIDSTANDIN', secretAccessKey: 'stand-in-secret' };
  let standIn: OpenSearchStandIn;
  beforeEach(async () => {
    standIn = await startOpenSearchStandIn(credentials);
  });
  afterEach(() => standIn.close());

  it('answers random queries as the query model does: ids, positions, totals, pages by offset and by position', async () => {
    await answersAsTheModel(new OpenSearchEngine(standIn.url, { credentials, region: 'eu-west-1' }));
  });

  it('puts and removes documents, keeps its position, and forgets both when cleared', async () => {
    await putsRemovesAndClears(new OpenSearchEngine(standIn.url, { credentials, region: 'eu-west-1' }));
  });
});

describe('what OpenSearch is asked', () => {
  const query: SearchQuery = {
    kind: 'products',
    locale: 'fr_FR',
    fallback: 'en_US',
    filters: [
      { kind: 'in', field: 'defaultCategory', values: [3, 5] },
      { kind: 'in', field: 'id', values: [9], not: true },
      { kind: 'range', field: 'price', min: '0000000000010000000', max: '0000000000050000000' },
      { kind: 'text', fields: ['title'], mode: 'contains', term: 'cr*me' },
    ],
    order: { field: 'price', text: false, reverse: true },
    limit: 10,
    offset: 20,
  };

  it('filters by terms, ranges and wildcards, a localized text read in its fallback when the record has none in the locale', () => {
    const body = searchBody(query) as { query: { bool: { filter: unknown[] } }; size: number; from: number; sort: unknown[] };
    expect(body.size).toBe(11);
    expect(body.from).toBe(20);
    const [terms, excluded, range, text] = body.query.bool.filter;
    expect(terms).toEqual({ terms: { 'v.defaultCategory': [3, 5] } });
    expect(excluded).toEqual({ bool: { must_not: [{ terms: { id: [9] } }] } });
    expect(range).toEqual({ range: { 'v.price': { gte: '0000000000010000000', lte: '0000000000050000000' } } });
    const wildcard = (path: string) => ({ wildcard: { [path]: { value: '*cr\\*me*' } } });
    expect(JSON.stringify(text)).toContain(JSON.stringify(wildcard('t.title.fr_FR')));
    expect(JSON.stringify(text)).toContain(JSON.stringify({ bool: { must_not: [{ term: { locales: 'fr_FR' } }], filter: [wildcard('t.title.en_US')] } }));
    expect(body.sort).toEqual([{ 'v.price': { order: 'desc' } }, { id: { order: 'desc' } }]);
  });

  it('continues after a position rather than at an offset', () => {
    const body = searchBody({ ...query, after: ['0000000000012000000', 7] }) as Record<string, unknown>;
    expect(body.search_after).toEqual(['0000000000012000000', 7]);
    expect(body.from).toBeUndefined();
  });
});
