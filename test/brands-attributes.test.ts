/**
 * Brands, attributes and their values (docs/api.md) as a client meets them: Thelia's routes and rows,
 * texts per locale, positions, lists with Thelia's arguments, references checked both ways (a
 * product's brand exists; a brand in use, an attribute with values cannot go), and their changes.
 */
import { describe, expect, it } from 'vitest';
import { del, get, ids, keyWith, post, problemFields, put, tableSnapshot } from './support/api.js';
import { cursorNow, followChanges } from './support/changes.js';
import { CONTRACT_ROW_KEYS } from './support/contract-rows.js';
import { createAttribute, createAttributeAv, createBrand, createProduct } from './support/fixtures.js';
import { useSearchIndex } from './support/search-index.js';

const index = useSearchIndex();
// Webhooks to this machine, as npm start allows them (the subscriptions below deliver nowhere).
process.env.STORE_WEBHOOKS_ALLOW_LOOPBACK = '1';

describe('brands', () => {
  it('creates a brand with its texts and meta texts, answers it in any locale, and updates it per locale (201 + the row)', async () => {
    const created = await post('/api/brands', { title: 'Maison', locale: 'fr_FR', chapo: 'Depuis 1920', meta_title: 'Maison – meubles', visible: 1 });
    expect(created.status).toBe(201);
    const [row] = created.body;
    expect(Object.keys(row)).toEqual([...CONTRACT_ROW_KEYS.brand]);
    expect(row).toMatchObject({
      LOCALE: 'fr_FR',
      IS_TRANSLATED: 1,
      TITLE: 'Maison',
      CHAPO: 'Depuis 1920',
      META_TITLE: 'Maison – meubles',
      META_KEYWORDS: '',
      VISIBLE: 1,
      LOGO_IMAGE_ID: 0,
      VERSION: 1,
    });
    expect((await get(`/api/brands/${row.ID}?lang=fr_FR`)).body).toEqual([row]);
    const updated = await put('/api/brands', { id: row.ID, locale: 'en_US', title: 'House', meta_keywords: 'chairs, tables' });
    expect(updated.status).toBe(201);
    expect(updated.body[0]).toMatchObject({ LOCALE: 'en_US', TITLE: 'House', META_KEYWORDS: 'chairs, tables', VERSION: 2 });
    expect((await get(`/api/brands/${row.ID}?lang=de_DE`)).body[0]).toMatchObject({ LOCALE: 'de_DE', IS_TRANSLATED: 0, TITLE: 'House' });
    expect((await put('/api/brands', { id: row.ID, visible: 0 }, { headers: { 'if-match': '"1"' } })).status).toBe(412);
    expect((await put('/api/brands', { id: 987654, visible: 0 })).status).toBe(404);
    expect((await get('/api/brands/987654')).status).toBe(404);
  });

  it('refuses bad fields naming each, and writes nothing', async () => {
    const before = await tableSnapshot();
    const bad = await post('/api/brands', { locale: 'xx_XX', visible: 'maybe', position: -1, meta_title: 'a\nb', colour: 'red' });
    expect(bad.status).toBe(400);
    expect(problemFields(bad).sort()).toEqual(['colour', 'locale', 'meta_title', 'position', 'title', 'visible']);
    const textWithoutLocale = await put('/api/brands', { id: 1, meta_title: 'no locale' });
    expect(problemFields(textWithoutLocale)).toEqual(['locale']);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('lists brands by position (the default), id, title, and as the brand of a product', async () => {
    const [b, a, c] = [await createBrand({ title: 'Bravo' }), await createBrand({ title: 'alpha' }), await createBrand({ title: 'Charlie', visible: 1 })];
    expect([a.POSITION, c.POSITION]).toEqual([b.POSITION + 1, b.POSITION + 2]);
    expect((await put('/api/brands', { id: c.ID, position: 0 })).status).toBe(201);
    const mine = (response: { body: { ID: number }[] }) => ids(response as never).filter((id) => [a.ID, b.ID, c.ID].includes(id));
    expect(mine(await get('/api/brands?limit=100'))).toEqual([c.ID, b.ID, a.ID]);
    expect(mine(await get('/api/brands?limit=100&order=id_reverse'))).toEqual([c.ID, a.ID, b.ID]);
    await index.caughtUp();
    expect(mine(await get(`/api/brands?limit=100&order=alpha&id=${a.ID},${b.ID},${c.ID}`))).toEqual([a.ID, b.ID, c.ID]);
    expect(ids(await get(`/api/brands?title=harl&id=${a.ID},${b.ID},${c.ID}`))).toEqual([c.ID]);
    expect(ids(await get(`/api/brands?id=${a.ID},${b.ID},${c.ID}&visible=1`))).toEqual([c.ID]);
    expect(ids(await get(`/api/brands?id=${b.ID}&exclude=${b.ID}`))).toEqual([]);
    const all = await get('/api/brands?limit=100');
    expect(Number(all.headers['x-total-count'])).toBe(all.body.length);

    const { row: product } = await createProduct({ brand_id: b.ID });
    expect(product.BRAND_ID).toBe(b.ID);
    expect(ids(await get(`/api/brands?product=${product.ID}`))).toEqual([b.ID]);
    expect(ids(await get(`/api/brands?product=${product.ID}&id=${a.ID}`))).toEqual([]);
    await index.caughtUp();
    expect(ids(await get(`/api/products?brand=${b.ID}`))).toEqual([product.ID]);
    expect((await get('/api/brands?order=random')).status).toBe(400);
  });

  it("checks a product's brand, and keeps a brand that products use (409) until they leave it", async () => {
    const brand = await createBrand();
    const before = await tableSnapshot();
    const unknown = await post('/api/products', { ref: `NOBRAND-${Date.now()}`, price: 1, currency: 1, tax_rule: 1, locale: 'en_US', title: 'x', default_category: 0, brand_id: 987654 });
    expect(unknown.status).toBe(400);
    expect(problemFields(unknown)).toEqual(['brand_id']);
    expect(await tableSnapshot()).toEqual(before);

    const { row: product } = await createProduct({ brand_id: brand.ID });
    const inUse = await del(`/api/brands/${brand.ID}`);
    expect(inUse.status).toBe(409);
    expect(inUse.body.detail).toMatch(/1 product\(s\)/);
    expect((await put(`/api/products/${product.ID}`, { brand_id: 987654 })).status).toBe(400);
    expect((await put(`/api/products/${product.ID}`, { brand_id: 0 })).status).toBe(204);
    expect((await del(`/api/brands/${brand.ID}`)).status).toBe(204);
    expect((await get(`/api/brands/${brand.ID}`)).status).toBe(404);
  });

  it('never lets a delete and a product naming the brand both succeed', async () => {
    for (let round = 0; round < 3; round++) {
      const brand = await createBrand();
      const [created, deleted] = await Promise.all([
        post('/api/products', { ref: `RACE-${Date.now()}-${round}`, price: 1, currency: 1, tax_rule: 1, locale: 'en_US', title: 'x', default_category: 0, brand_id: brand.ID }),
        del(`/api/brands/${brand.ID}`),
      ]);
      expect([created.status, deleted.status].sort()).not.toEqual([201, 204]);
      if (created.status === 201) expect((await get(`/api/brands/${brand.ID}`)).status).toBe(200);
    }
  });
});

describe('attributes and their values', () => {
  it('creates an attribute and its values in order, lists them as Thelia does, and answers their rows', async () => {
    const size = await createAttribute({ title: 'Size' });
    expect(Object.keys(size)).toEqual([...CONTRACT_ROW_KEYS.attribute]);
    const created = await post('/api/attribute-avs', { attribute_id: size.ID, title: 'Large', locale: 'en_US' });
    expect(created.status).toBe(201);
    const large = created.body[0];
    expect(Object.keys(large)).toEqual([...CONTRACT_ROW_KEYS.attributeAv]);
    expect(large).toMatchObject({ ATTRIBUTE_ID: size.ID, TITLE: 'Large', POSITION: 1, VERSION: 1 });
    const small = await createAttributeAv(size.ID, { title: 'Small' });
    const medium = await createAttributeAv(size.ID, { title: 'Medium', position: 0 });
    expect(small.POSITION).toBe(2);
    expect(ids(await get(`/api/attribute-avs?attribute=${size.ID}`))).toEqual([medium.ID, large.ID, small.ID]);
    expect(ids(await get(`/api/attribute-avs?attribute=${size.ID}&order=manual_reverse`))).toEqual([small.ID, large.ID, medium.ID]);
    await index.caughtUp();
    expect(ids(await get(`/api/attribute-avs?attribute=${size.ID}&order=alpha`))).toEqual([large.ID, medium.ID, small.ID]);
    expect(ids(await get(`/api/attribute-avs?attribute=${size.ID}&exclude=${large.ID}&order=id`))).toEqual([small.ID, medium.ID]);
    expect(Number((await get(`/api/attribute-avs?attribute=${size.ID}`)).headers['x-total-count'])).toBe(3);
    const updated = await put('/api/attribute-avs?lang=fr_FR', { id: large.ID, locale: 'fr_FR', title: 'Grand' });
    expect(updated.status).toBe(201);
    expect(updated.body[0]).toMatchObject({ LOCALE: 'fr_FR', TITLE: 'Grand', VERSION: 2 });
    expect((await get(`/api/attribute-avs/${large.ID}`)).body[0]).toMatchObject({ LOCALE: 'en_US', TITLE: 'Large' });
    expect((await get(`/api/attributes/${size.ID}`)).body[0]).toMatchObject({ TITLE: 'Size' });
    expect(ids(await get(`/api/attributes?id=${size.ID}`))).toEqual([size.ID]);
  });

  it('refuses a value of no attribute and an attribute moved by an update, naming the field, and writes nothing', async () => {
    const attribute = await createAttribute();
    const value = await createAttributeAv(attribute.ID);
    const before = await tableSnapshot();
    const orphan = await post('/api/attribute-avs', { attribute_id: 987654, title: 'Orphan', locale: 'en_US' });
    expect(orphan.status).toBe(400);
    expect(problemFields(orphan)).toEqual(['attribute_id']);
    const moved = await put('/api/attribute-avs', { id: value.ID, attribute_id: attribute.ID });
    expect(problemFields(moved)).toEqual(['attribute_id']);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('keeps an attribute that has values (409) until they are gone, under concurrent writes too', async () => {
    const attribute = await createAttribute();
    const value = await createAttributeAv(attribute.ID);
    expect((await del(`/api/attributes/${attribute.ID}`)).status).toBe(409);
    expect((await del(`/api/attribute-avs/${value.ID}`)).status).toBe(204);
    expect((await del(`/api/attributes/${attribute.ID}`)).status).toBe(204);
    for (let round = 0; round < 3; round++) {
      const raced = await createAttribute();
      const [created, deleted] = await Promise.all([post('/api/attribute-avs', { attribute_id: raced.ID, title: 'v', locale: 'en_US' }), del(`/api/attributes/${raced.ID}`)]);
      expect([created.status, deleted.status].sort()).not.toEqual([201, 204]);
    }
  });

  it('records their changes in the feed, under their own names', async () => {
    const start = await cursorNow();
    const attribute = await createAttribute({ title: 'Colour' });
    const value = await createAttributeAv(attribute.ID, { title: 'Red' });
    const brand = await createBrand({ title: 'Feed' });
    const { changes } = await followChanges(start);
    expect(changes.map((c) => [c.RESOURCE, c.ENTITY_ID, c.TYPE])).toEqual(
      expect.arrayContaining([
        ['attribute', attribute.ID, 'created'],
        ['attribute-av', value.ID, 'created'],
        ['brand', brand.ID, 'created'],
      ]),
    );
    expect(changes.find((c) => c.RESOURCE === 'attribute-av')?.CHANGES.map((c) => c.field)).toEqual(['ATTRIBUTE_ID', 'TITLE', 'POSITION']);
  });
});

describe('what every resource has', () => {
  it('writes brands, attributes and values in batches, each row as its single route answers it', async () => {
    const brand = await createBrand();
    const brands = await post('/api/brands/batch', {
      rows: [
        { op: 'create', title: 'Batch one', locale: 'en_US' },
        { op: 'update', id: brand.ID, locale: 'fr_FR', title: 'Lot' },
        { op: 'delete', id: 987654 },
      ],
    });
    expect(brands.status).toBe(200);
    expect(brands.body.map((result: { STATUS: number }) => result.STATUS)).toEqual([201, 201, 404]);
    expect(brands.body[1].ROW).toMatchObject({ ID: brand.ID, LOCALE: 'fr_FR', TITLE: 'Lot' });
    const attribute = await createAttribute();
    const values = await post('/api/attribute-avs/batch', {
      atomic: true,
      rows: [
        { op: 'create', attribute_id: attribute.ID, title: 'S', locale: 'en_US' },
        { op: 'create', attribute_id: attribute.ID, title: 'M', locale: 'en_US' },
      ],
    });
    expect(values.body.map((result: { STATUS: number }) => result.STATUS)).toEqual([201, 201]);
    // One attribute's values are counted by the index (docs/lists.md).
    await index.caughtUp();
    expect(Number((await get(`/api/attribute-avs?attribute=${attribute.ID}`)).headers['x-total-count'])).toBe(2);
    const refused = await post('/api/attribute-avs/batch', {
      atomic: true,
      rows: [
        { op: 'create', attribute_id: attribute.ID, title: 'L', locale: 'en_US' },
        { op: 'delete', id: 987654 },
      ],
    });
    expect(refused.body.map((result: { STATUS: number }) => result.STATUS)).toContain(404);
    await index.caughtUp();
    expect(Number((await get(`/api/attribute-avs?attribute=${attribute.ID}`)).headers['x-total-count'])).toBe(2);
  });

  it('asks for the grants brand and attribute (values are an attribute’s), as any other resource', async () => {
    const reader = await keyWith({ brand: ['VIEW'], attribute: ['VIEW'] });
    expect((await get('/api/brands', { as: reader })).status).toBe(200);
    expect((await get('/api/attribute-avs', { as: reader })).status).toBe(200);
    expect((await post('/api/brands', { title: 'No', locale: 'en_US' }, { as: reader })).status).toBe(403);
    const productsOnly = await keyWith({ product: ['VIEW', 'CREATE', 'UPDATE', 'DELETE'] });
    expect((await get('/api/brands', { as: productsOnly })).status).toBe(403);
    expect((await get('/api/attributes', { as: productsOnly })).status).toBe(403);
    expect((await get('/api/changes?resource=brand', { as: productsOnly })).status).toBe(403);
    expect((await get('/api/changes?resource=attribute-av', { as: reader })).status).toBe(200);
  });

  it('lets webhooks subscribe to their events', async () => {
    const created = await post('/api/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['brand.*', 'attribute.created', 'attribute-av.deleted'] });
    expect(created.status, created.text).toBe(201);
    expect((await post('/api/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['brandy.*'] })).status).toBe(400);
    expect((await del(`/api/webhooks/${created.body[0].ID}`)).status).toBe(204);
  });
});
