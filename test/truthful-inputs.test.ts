/**
 * What a red team sent to the lists (issue 56), each answered as the contract says: a term with a
 * control character or naming nothing, a date that is no date, an empty parameter, an altered cursor.
 * Each was a 500, a list of every record, or accepted, before.
 */
import { describe, expect, it } from 'vitest';
import { get, ids, post, problemFields, put } from './support/api.js';
import { cursorNow, followChanges } from './support/changes.js';
import { createCategory, createProduct, productInput } from './support/fixtures.js';
import { useSearchIndex } from './support/search-index.js';

// The local search index, as npm start has it: a term reaches SQLite's FTS5.
const searchIndex = useSearchIndex();

describe('a text a list searches for', () => {
  it('holds no control character: a NUL is a 400 naming the parameter, on every list that searches', async () => {
    for (const [path, parameter] of [
      ['/api/products', 'title'],
      ['/api/products', 'search_term'],
      ['/api/customers', 'search_term'],
      ['/api/categories', 'title'],
      ['/api/brands', 'title'],
    ]) {
      const answer = await get(`${path}?${parameter}=ab%00cd`);
      expect(answer.status, `${path}?${parameter}`).toBe(400);
      expect(problemFields(answer)).toEqual([parameter]);
    }
  });

  it('names something once folded: a lone accent or a zero-width space is a 400, not every record', async () => {
    for (const term of ['%CC%81', '%E2%80%8B']) {
      const answer = await get(`/api/products?title=${term}`);
      expect(answer.status, term).toBe(400);
      expect(answer.body.detail).toMatch(/letter or a digit/);
    }
  });
});

describe('a text filter and a search term', () => {
  it('fold case fully on the search path, as refs do: ΟΔΟΣ finds Οδός, STRASSE finds Straße, and the other way round', async () => {
    const tag = `${process.pid}${Date.now()}`.slice(-9);
    const greek = (await createProduct({ title: `Οδός ${tag}` })).row.ID;
    const german = (await createProduct({ title: `Straße ${tag}` })).row.ID;
    await searchIndex.caughtUp();
    const found = async (query: string) => ids(await get(`/api/products?${query}`));
    expect(await found(`title=${encodeURIComponent(`ΟΔΟΣ ${tag}`)}`)).toEqual([greek]);
    expect(await found(`title=${encodeURIComponent(`οδοσ ${tag}`)}`)).toEqual([greek]);
    expect(await found(`title=${encodeURIComponent(`STRASSE ${tag}`)}`)).toEqual([german]);
    expect(await found(`search_term=${encodeURIComponent(`strasse ${tag}`)}`)).toEqual([german]);
    expect(await found(`title=${encodeURIComponent(`STRAẞE ${tag}`)}`)).toEqual([german]);
  });

  it('are searched in an index folded as they are: one whose documents were folded before (its position noted without the form) is rebuilt', async () => {
    await searchIndex.caughtUp();
    const engine = searchIndex.engine();
    const { form: _, ...asBefore } = (await engine.position()) as NonNullable<Awaited<ReturnType<typeof engine.position>>> & { form?: number };
    await engine.write([], asBefore);
    expect((await searchIndex.caughtUp())?.rebuilt).toBe(true);
    expect((await searchIndex.caughtUp())?.rebuilt).toBe(false);
  });
});

describe('a list the search index serves', () => {
  it('answers 503 (index-building, Retry-After) while the index is built from the table, never a part of the list; its rows once whole', async () => {
    const { row } = await createProduct({ title: `Whole ${process.pid}` });
    await searchIndex.caughtUp();
    searchIndex.lose();
    for (const path of ['/api/products?title=whole', '/api/pse?max_stock=1', '/api/brands?title=whole']) {
      const building = await get(path);
      expect(building.status, path).toBe(503);
      expect(building.headers['retry-after'], path).toBe('1');
      expect(building.body.type, path).toBe('/api/docs#problem-index-building');
    }
    // A list the table serves still answers; its total, which the index would count, waits too.
    expect((await get(`/api/products/${row.ID}`)).status).toBe(200);
    expect((await searchIndex.caughtUp())?.rebuilt).toBe(true);
    expect(ids(await get(`/api/products?title=${encodeURIComponent(`Whole ${process.pid}`)}`))).toEqual([row.ID]);
  });
});

describe('the positions of siblings made at once', () => {
  it('are distinct: 40 categories of one batch under one parent, and 12 brands created concurrently', async () => {
    const parent = (await createCategory()).ID;
    // Rows a busy machine's budget left out (503, not applied) are sent again, as a client does.
    const positions: number[] = [];
    let rows = Array.from({ length: 40 }, (_, n) => ({ op: 'create', parent, locale: 'en_US', title: `Sibling ${n}` }));
    for (let round = 0; rows.length && round < 5; round++) {
      const made = await post('/api/categories/batch', { rows });
      expect(made.status, made.text).toBe(200);
      const results = made.body as { STATUS: number; ROW?: { POSITION: number } }[];
      for (const result of results) expect([201, 503]).toContain(result.STATUS);
      positions.push(...results.flatMap((result) => (result.ROW ? [result.ROW.POSITION] : [])));
      rows = rows.filter((_, k) => results[k]?.STATUS === 503);
    }
    expect(positions).toHaveLength(40);
    expect(new Set(positions).size).toBe(40);
    const brands = await Promise.all(Array.from({ length: 12 }, (_, n) => post('/api/brands', { locale: 'en_US', title: `Concurrent ${n}` })));
    const brandPositions = brands.map((brand) => brand.body[0].POSITION as number);
    expect(new Set(brandPositions).size).toBe(12);
  });
});

describe('a date a list takes', () => {
  it('is a date of the calendar, within the years 0000–9999 once its offset is applied', async () => {
    for (const date of ['2026-02-30', '2026-13-01', '9999-12-31T23:59:59-23:59']) {
      const answer = await get(`/api/products?updated_since=${encodeURIComponent(date)}&order=updated`);
      expect(answer.status, date).toBe(400);
      expect(problemFields(answer)).toEqual(['updated_since']);
    }
    expect((await get('/api/products?updated_since=2024-02-29&order=updated')).status).toBe(200);
    expect((await get(`/api/products?updated_since=${encodeURIComponent('9999-12-31T23:59:59+01:00')}&order=updated`)).status).toBe(200);
  });
});

describe('an empty parameter', () => {
  it('is as if absent, as Thelia’s forms send them', async () => {
    await createProduct();
    const plain = await get('/api/products?limit=100');
    const empty = await get('/api/products?limit=100&min_price=&max_price=&title=');
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body).toEqual(plain.body);
  });
});

describe('a cursor', () => {
  it('altered by any byte is a 400: padding or a line feed added too', async () => {
    await createProduct();
    await createProduct();
    const first = await get('/api/products?limit=1');
    const cursor = first.headers['x-next-cursor']!;
    expect((await get(`/api/products?limit=1&cursor=${cursor}`)).status).toBe(200);
    for (const altered of [`${cursor}=`, `${cursor}%0A`, `${cursor}==`]) expect((await get(`/api/products?limit=1&cursor=${altered}`)).status, altered).toBe(400);
  });

  it("stays small however long the list's filters are, and still holds to them", async () => {
    await createProduct();
    await createProduct();
    await searchIndex.caughtUp();
    const exclude = Array.from({ length: 3000 }, (_, i) => 900_000 + i).join(',');
    const first = await get(`/api/products?limit=1&exclude=${exclude}`);
    expect(first.status, first.text).toBe(200);
    const cursor = first.headers['x-next-cursor']!;
    expect(cursor.length).toBeLessThan(200);
    expect((await get(`/api/products?limit=1&exclude=${exclude}&cursor=${cursor}`)).status).toBe(200);
    expect((await get(`/api/products?limit=1&exclude=${exclude},1&cursor=${cursor}`)).status).toBe(400);
  });
});

describe('a write that changes nothing', () => {
  it('keeps the version and records no change, a stale If-Match still a 412', async () => {
    const { row } = await createProduct({ price: '5', title: 'Same' });
    const category = await createCategory({ title: 'Same' });
    const start = await cursorNow();
    expect((await put(`/api/products/${row.ID}`, { price: '5.000', locale: 'en_US', title: 'Same' })).status).toBe(204);
    const same = await put('/api/categories', { id: category.ID, locale: 'en_US', title: 'Same' });
    expect(same.status).toBe(201);
    expect(same.body[0]).toMatchObject({ VERSION: 1 });
    expect((await get(`/api/products/${row.ID}`)).body[0]).toMatchObject({ VERSION: 1 });
    expect((await put(`/api/products/${row.ID}`, { price: '5' }, { headers: { 'if-match': '"7"' } })).status).toBe(412);
    // A nightly upsert of unchanged data: every row answered, nothing in the feed.
    const batch = await post('/api/products/batch', { rows: [{ op: 'upsert', ...productInput({ ref: row.REF, price: '5', title: 'Same' }) }] });
    expect(batch.body[0]).toMatchObject({ STATUS: 204, ID: row.ID });
    expect((await followChanges(start)).changes.filter((change) => [row.ID, category.ID].includes(change.ENTITY_ID as number))).toEqual([]);
    expect((await put(`/api/products/${row.ID}`, { price: '6' })).status).toBe(204);
    expect((await get(`/api/products/${row.ID}`)).body[0]).toMatchObject({ VERSION: 2, PRICE: '6.000000' });
  });
});
