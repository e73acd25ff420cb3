/**
 * Categories (docs/api.md) as a client meets them: Thelia's routes and rows, a tree whose parents
 * exist and which never loops, a category nothing refers to before it may go, and the products
 * listed by their default category.
 */
import { describe, expect, it } from 'vitest';
import { del, followPages, get, ids, post, problemFields, put, tableSnapshot } from './support/api.js';
import { cursorNow, followChanges } from './support/changes.js';
import { CONTRACT_ROW_KEYS } from './support/contract-rows.js';
import { createCategory, createProduct } from './support/fixtures.js';

describe('POST /api/categories', () => {
  it('creates a category at the root and answers its row in the creation locale', async () => {
    const response = await post('/api/categories', { title: 'Chaises', locale: 'fr_FR', chapo: 'Pour s’asseoir', visible: 1 });
    expect(response.status).toBe(201);
    expect(response.headers.etag).toBe('"1"');
    const [row] = response.body;
    expect(Object.keys(row)).toEqual([...CONTRACT_ROW_KEYS.category]);
    expect(row).toMatchObject({ LOCALE: 'fr_FR', IS_TRANSLATED: 1, TITLE: 'Chaises', CHAPO: 'Pour s’asseoir', DESCRIPTION: '', PARENT: 0, VISIBLE: 1, VERSION: 1 });
    expect((await get(`/api/categories/${row.ID}?lang=fr_FR`)).body).toEqual([row]);
    // A language without texts shows the default language's (en_US), here none.
    expect((await get(`/api/categories/${row.ID}?lang=de_DE`)).body[0]).toMatchObject({ LOCALE: 'de_DE', TITLE: '', IS_TRANSLATED: 0 });
    expect((await put('/api/categories', { id: row.ID, locale: 'en_US', title: 'Chairs' })).status).toBe(201);
    expect((await get(`/api/categories/${row.ID}?lang=de_DE`)).body[0]).toMatchObject({ LOCALE: 'de_DE', TITLE: 'Chairs', IS_TRANSLATED: 0 });
  });

  it('places a new category after its siblings, under a parent that exists', async () => {
    const parent = await createCategory({ title: 'Furniture' });
    const first = await createCategory({ parent: parent.ID, title: 'Tables' });
    const second = await createCategory({ parent: parent.ID, title: 'Beds' });
    expect([first.PARENT, first.POSITION, second.POSITION]).toEqual([parent.ID, 1, 2]);
  });

  it('refuses a parent that is no category, a missing title and unknown fields, naming each, and writes nothing', async () => {
    const before = await tableSnapshot();
    const unknownParent = await post('/api/categories', { title: 'Orphan', locale: 'en_US', parent: 987654 });
    expect(unknownParent.status).toBe(400);
    expect(problemFields(unknownParent)).toEqual(['parent']);
    const bad = await post('/api/categories', { locale: 'xx_XX', parent: -1, visible: 'maybe', colour: 'red' });
    expect(bad.status).toBe(400);
    expect(problemFields(bad).sort()).toEqual(['colour', 'locale', 'parent', 'title', 'visible']);
    expect(await tableSnapshot()).toEqual(before);
  });
});

describe('GET /api/categories', () => {
  it('lists the children of a parent by position, paged by cursor, and every category with its total', async () => {
    const parent = await createCategory({ title: 'Garden' });
    const children = [];
    for (const title of ['Pots', 'Tools', 'Seeds']) children.push(await createCategory({ parent: parent.ID, title }));
    // Moved first: the list follows positions, not ids.
    expect((await put('/api/categories', { id: children[2]!.ID, position: 0 })).status).toBe(201);
    const walked = await followPages(`/api/categories?parent=${parent.ID}&limit=2`);
    expect(walked.map((row) => row.TITLE)).toEqual(['Seeds', 'Pots', 'Tools']);
    expect(ids(await get(`/api/categories?parent=${parent.ID}&order=id_reverse`))).toEqual(children.map((c) => c.ID).reverse());
    const all = await get('/api/categories?order=id&limit=100');
    expect(Number(all.headers['x-total-count'])).toBe(all.body.length);
    expect(ids(all)).toEqual(expect.arrayContaining([parent.ID, ...children.map((c) => c.ID)]));
    expect((await get('/api/categories?order=title')).status).toBe(400);
  });
});

describe('PUT /api/categories', () => {
  it('updates texts per locale, visibility and position, answering 201 with the row', async () => {
    const category = await createCategory({ title: 'Lamps' });
    const response = await put('/api/categories?lang=fr_FR', { id: category.ID, locale: 'fr_FR', title: 'Lampes', visible: 1 });
    expect(response.status).toBe(201);
    expect(response.body[0]).toMatchObject({ ID: category.ID, LOCALE: 'fr_FR', TITLE: 'Lampes', VISIBLE: 1, VERSION: 2 });
    expect((await get(`/api/categories/${category.ID}`)).body[0]).toMatchObject({ TITLE: 'Lamps', LOCALE: 'en_US' });
    expect((await put('/api/categories', { id: category.ID, title: 'No locale' })).status).toBe(400);
    expect((await put('/api/categories', { id: category.ID, visible: 0 }, { headers: { 'if-match': '"1"' } })).status).toBe(412);
    expect((await put('/api/categories', { id: 987654, visible: 0 })).status).toBe(404);
  });

  it('moves a category under another, never under itself or one of its descendants (400 parent, nothing written)', async () => {
    const top = await createCategory({ title: 'Top' });
    const middle = await createCategory({ parent: top.ID, title: 'Middle' });
    const bottom = await createCategory({ parent: middle.ID, title: 'Bottom' });
    const before = await tableSnapshot();
    for (const parent of [top.ID, middle.ID, bottom.ID]) {
      const refused = await put('/api/categories', { id: top.ID, parent });
      expect(refused.status, refused.text).toBe(400);
      expect(problemFields(refused)).toEqual(['parent']);
    }
    expect(await tableSnapshot()).toEqual(before);
    const moved = await put('/api/categories', { id: bottom.ID, parent: 0 });
    expect(moved.body[0]).toMatchObject({ PARENT: 0, VERSION: 2 });
    expect(ids(await get(`/api/categories?parent=${middle.ID}`))).toEqual([]);
  });

  it('lets only one of two moves that would make a loop happen at once', async () => {
    const a = await createCategory({ title: 'A' });
    const b = await createCategory({ title: 'B' });
    const answers = await Promise.all([put('/api/categories', { id: a.ID, parent: b.ID }), put('/api/categories', { id: b.ID, parent: a.ID })]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 400]);
  });
});

describe('DELETE /api/categories/{id}', () => {
  it('refuses (409) a category with children or products, and deletes it once nothing refers to it', async () => {
    const parent = await createCategory({ title: 'Kitchen' });
    const child = await createCategory({ parent: parent.ID, title: 'Knives' });
    const product = await createProduct({ default_category: child.ID });
    expect((await del(`/api/categories/${parent.ID}`)).status).toBe(409);
    expect((await del(`/api/categories/${child.ID}`)).status).toBe(409);
    expect((await put(`/api/products/${product.row.ID}`, { default_category: 0 })).status).toBe(204);
    expect((await del(`/api/categories/${child.ID}`)).status).toBe(204);
    expect((await del(`/api/categories/${parent.ID}`)).status).toBe(204);
    expect((await get(`/api/categories/${parent.ID}`)).status).toBe(404);
  });
});

describe("a product's default category", () => {
  it('is 0 or a category: another id is a 400 naming default_category, on create and update', async () => {
    const refused = await post('/api/products', { ref: 'NO-CATEGORY', default_category: 987654, price: 1, currency: 1, tax_rule: 1, locale: 'en_US', title: 'x' });
    expect(refused.status).toBe(400);
    expect(problemFields(refused)).toEqual(['default_category']);
    const product = await createProduct({ default_category: 0 });
    const update = await put(`/api/products/${product.row.ID}`, { default_category: 987654 });
    expect(problemFields(update)).toEqual(['default_category']);
  });

  it('lists the products of a category (category_default), paged, and follows a product that moves', async () => {
    const [shoes, boots] = [await createCategory({ title: 'Shoes' }), await createCategory({ title: 'Boots' })];
    const made = [];
    for (let i = 0; i < 3; i++) made.push((await createProduct({ default_category: shoes.ID })).row.ID);
    expect((await followPages(`/api/products?category_default=${shoes.ID}&limit=2`)).map((row) => row.ID)).toEqual(made);
    expect((await put(`/api/products/${made[0]}`, { default_category: boots.ID })).status).toBe(204);
    expect(ids(await get(`/api/products?category_default=${boots.ID}`))).toEqual([made[0]]);
    expect(ids(await get(`/api/products?category_default=${shoes.ID}&order=id_reverse`))).toEqual(made.slice(1).reverse());
    expect((await del(`/api/categories/${boots.ID}`)).status).toBe(409);
    expect((await del(`/api/products/${made[0]}`)).status).toBe(204);
    expect((await del(`/api/categories/${boots.ID}`)).status).toBe(204);
  });
});

describe('changes of categories', () => {
  it('are in the feed as category, field by field', async () => {
    const start = await cursorNow('&resource=category');
    const category = await createCategory({ title: 'Audited' });
    await put('/api/categories', { id: category.ID, visible: 1 });
    await del(`/api/categories/${category.ID}`);
    const { changes } = await followChanges(start, '&resource=category');
    const mine = changes.filter((change) => change.ENTITY_ID === category.ID);
    expect(mine.map((change) => [change.RESOURCE, change.TYPE, change.VERSION])).toEqual([
      ['category', 'created', 1],
      ['category', 'updated', 2],
      ['category', 'deleted', 2],
    ]);
    expect(mine[1]!.CHANGES).toEqual([{ field: 'VISIBLE', locale: null, before: 0, after: 1 }]);
  });
});
