/**
 * Product sale elements (docs/api.md) as a client meets them: the default one made with its product
 * and tied to its row, Thelia's multi-entry writes all or nothing, prices per currency and with tax,
 * attribute combinations, stock that is never oversold, deletes that move the default and leave no
 * orphan.
 */
import { describe, expect, it } from 'vitest';
import { del, get, ids, post, problemFields, put, tableSnapshot } from './support/api.js';
import { cursorNow, followChanges } from './support/changes.js';
import { createAttribute, createAttributeAv, createProduct, createTaxRule } from './support/fixtures.js';
import { projection } from '../lib/pse/search.js';
import { useSearchIndex } from './support/search-index.js';

const index = useSearchIndex();

const PSE_ROW_KEYS = [
  'ID',
  'PRODUCT_ID',
  'REF',
  'EAN_CODE',
  'QUANTITY',
  'IS_PROMO',
  'IS_NEW',
  'IS_DEFAULT',
  'WEIGHT',
  'CURRENCY',
  'PRICE',
  'PRICE_TAX',
  'TAXED_PRICE',
  'PROMO_PRICE',
  'PROMO_PRICE_TAX',
  'TAXED_PROMO_PRICE',
  'ATTRIBUTE_AVS',
  'VERSION',
  'CREATE_DATE',
  'UPDATE_DATE',
  'LOOP_COUNT',
  'LOOP_TOTAL',
];

let sequence = 0;
const ref = (prefix = 'PSE') => `${prefix}-${process.pid}-${Date.now()}-${++sequence}`;

/** A product (its rule 1: France's 20 %) and its default sale element's row. */
async function productWithDefault(overrides: Record<string, unknown> = {}) {
  const { row: product } = await createProduct({ price: '10', weight: '1.5', ...overrides });
  const elements = await get(`/api/pse/product/${product.ID}`);
  expect(elements.status).toBe(200);
  return { product, element: elements.body[0] };
}

/**
 * Sale element `id`'s row as every route answers it, the search index caught up: read alone, in its
 * product's list, in the list across products, in a take's answer (one taken) and in a write's that
 * sets `fields` (a transaction's).
 */
async function rowsEveryWay(productId: number, id: number, fields: Record<string, unknown>): Promise<Record<string, unknown>[]> {
  await index.caughtUp();
  const answers = [
    await get(`/api/pse/${id}`),
    await get(`/api/pse/product/${productId}`),
    await get(`/api/pse?id=${id}`),
    await put(`/api/pse/${id}`, { pse: [{ quantity_delta: -1 }] }),
    await put(`/api/pse/${id}`, { pse: [fields] }),
  ];
  return answers.map((answer) => answer.body.find((row: { ID: number }) => row.ID === id));
}

describe('a product and its default sale element', () => {
  it('are made together: the default holds the product’s ref, price and weight, no stock, and shows its taxes', async () => {
    const { product, element } = await productWithDefault();
    expect(Object.keys(element)).toEqual(PSE_ROW_KEYS);
    expect(element).toMatchObject({
      PRODUCT_ID: product.ID,
      REF: product.REF,
      QUANTITY: '0.000000',
      IS_DEFAULT: 1,
      WEIGHT: '1.500000',
      CURRENCY: 1,
      PRICE: '10.000000',
      PRICE_TAX: '2.000000',
      TAXED_PRICE: '12.000000',
      ATTRIBUTE_AVS: [],
      VERSION: 1,
    });
    expect((await get(`/api/pse/${element.ID}`)).body).toEqual([element]);
    expect((await get('/api/pse/product/987654')).status).toBe(404);
    expect((await get('/api/pse/987654')).status).toBe(404);
  });

  it('follow each other: a product update changes its default, and a write to the default changes the product', async () => {
    const { product, element } = await productWithDefault();
    expect((await put(`/api/products/${product.ID}`, { price: '12.5', weight: 2 })).status).toBe(204);
    expect((await get(`/api/pse/${element.ID}`)).body[0]).toMatchObject({ PRICE: '12.500000', WEIGHT: '2.000000', VERSION: 2 });
    const written = await put(`/api/pse/${element.ID}`, { pse: [{ price: '14', weight: '3' }] });
    expect(written.status, written.text).toBe(201);
    expect(written.body[0]).toMatchObject({ PRICE: '14.000000', WEIGHT: '3.000000', VERSION: 3 });
    expect((await get(`/api/products/${product.ID}`)).body[0]).toMatchObject({ PRICE: '14.000000', TAXED_PRICE: '16.800000', WEIGHT: '3.000000', VERSION: 3 });
  });

  it('go together: a product’s delete deletes its sale elements, so none is left without its product', async () => {
    const { product, element } = await productWithDefault();
    const variant = (await post('/api/pse', { pse: [{ product_id: product.ID, reference: ref(), currency_id: 1, price: 11 }] })).body[0];
    expect((await del(`/api/products/${product.ID}`)).status).toBe(204);
    expect((await get(`/api/pse/${element.ID}`)).status).toBe(404);
    expect((await get(`/api/pse/${variant.ID}`)).status).toBe(404);
    expect((await post('/api/pse', { pse: [{ product_id: product.ID, reference: ref(), currency_id: 1, price: 1 }] })).status).toBe(400);
  });
});

describe('POST /api/pse and PUT /api/pse/{id}', () => {
  it('creates variants in one request, all or nothing, answering their rows in order (201)', async () => {
    const { product } = await productWithDefault();
    const created = await post('/api/pse', {
      pse: [
        { product_id: product.ID, reference: ref('S'), currency_id: 1, price: '9', quantity: 4, ean_code: '4006381333931', onsale: 1, sale_price: '8' },
        { product_id: product.ID, reference: ref('M'), currency_id: 1, price_with_tax: '12', isnew: true },
      ],
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.map((row: { LOOP_COUNT: number }) => row.LOOP_COUNT)).toEqual([1, 2]);
    expect(created.body[0]).toMatchObject({ EAN_CODE: '4006381333931', QUANTITY: '4.000000', IS_PROMO: 1, PROMO_PRICE: '8.000000', TAXED_PROMO_PRICE: '9.600000', IS_DEFAULT: 0 });
    // A price sent with its tax: the untaxed price, exactly to six decimals.
    expect(created.body[1]).toMatchObject({ PRICE: '10.000000', TAXED_PRICE: '12.000000', IS_NEW: 1 });
    expect(ids(await get(`/api/pse/product/${product.ID}`))).toHaveLength(3);

    const before = await tableSnapshot();
    const refused = await post('/api/pse', {
      pse: [
        { product_id: product.ID, reference: ref(), currency_id: 1, price: '1' },
        { product_id: product.ID, reference: ref(), currency_id: 1, price: '1', ean_code: '4006381333932' },
      ],
    });
    expect(refused.status).toBe(400);
    expect(problemFields(refused)).toEqual(['pse[1].ean_code']);
    const taken = await post('/api/pse', {
      pse: [
        { product_id: product.ID, reference: ref(), currency_id: 1, price: '1' },
        { product_id: product.ID, reference: created.body[0].REF, currency_id: 1, price: '1' },
      ],
    });
    expect(taken.status).toBe(409);
    // Named as the entry names it: the reference of the second entry.
    expect(problemFields(taken)).toEqual(['pse[1].reference']);
    // A new sale element without a price would be sold at 0: its entry needs one, or the exchange rate's.
    const unpriced = await post('/api/pse', { pse: [{ product_id: product.ID, reference: ref(), currency_id: 1, quantity: 5 }] });
    expect(unpriced.status).toBe(400);
    expect(problemFields(unpriced)).toEqual(['pse[0].price']);
    const batched = await post('/api/pse/batch', { rows: [{ op: 'create', product_id: product.ID, reference: ref(), currency_id: 1, sale_price: '2' }] });
    expect(batched.body[0]).toMatchObject({ STATUS: 400, PROBLEM: { errors: [{ field: 'rows[0].price' }] } });
    expect(await tableSnapshot()).toEqual(before);
    const following = await post('/api/pse', { pse: [{ product_id: product.ID, reference: ref(), currency_id: 2, use_exchange_rate: true }] });
    expect(following.status, following.text).toBe(201);
  });

  it('names the entry whose id is no sale element (400), and answers 404 for the path’s, writing nothing', async () => {
    const { element } = await productWithDefault();
    const before = await tableSnapshot();
    const unknown = await put(`/api/pse/${element.ID}`, { pse: [{ quantity: 1 }, { id: 987654, quantity: 2 }] });
    expect(unknown.status).toBe(400);
    expect(problemFields(unknown)).toEqual(['pse[1].id']);
    expect((await put('/api/pse/987654', { pse: [{ quantity: 1 }] })).status).toBe(404);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('takes as many entries as one transaction holds, across products, and past it a 400 naming pse that writes nothing', async () => {
    const products = await Promise.all(Array.from({ length: 5 }, () => productWithDefault()));
    // Nine variants beside each default: 18 of two products in one request (about 4 writes a new sale element), then the others'.
    const variants = products.map(({ product }) => Array.from({ length: 9 }, (_, v) => ({ product_id: product.ID, reference: ref(`V${v}`), currency_id: 1, price: '5' })));
    const created = await post('/api/pse', { pse: variants.slice(0, 2).flat() });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toHaveLength(18);
    for (const more of [variants.slice(2, 4).flat(), variants[4]!]) expect((await post('/api/pse', { pse: more })).status).toBe(201);
    // Their stock in one request: 45 entries, each one sale element's stock, all applied (2 writes each, their changes' markers shared).
    const elements = (await Promise.all(products.map(async ({ product }) => (await get(`/api/pse/product/${product.ID}`)).body as Array<{ ID: number }>))).flat();
    expect(elements).toHaveLength(50);
    const stocking = elements.slice(0, 45);
    const stocked = await put(`/api/pse/${stocking[0]!.ID}`, { pse: stocking.map((element, n) => ({ id: element.ID, quantity: 100 + n })) });
    expect(stocked.status, stocked.text).toBe(201);
    expect(stocked.body.map((row: { QUANTITY: string }) => row.QUANTITY)).toEqual(stocking.map((_, n) => `${100 + n}.000000`));
    // Thirty-six new sale elements over four other products, more than one transaction holds: refused whole, before anything is written.
    const others = await Promise.all(Array.from({ length: 4 }, () => productWithDefault()));
    const before = await tableSnapshot();
    const tooMany = await post('/api/pse', {
      pse: Array.from({ length: 36 }, (_, n) => ({ product_id: others[n % 4]!.product.ID, reference: ref(`W${n}`), currency_id: 1, price: '5' })),
    });
    expect(tooMany.status).toBe(400);
    expect(problemFields(tooMany)).toEqual(['pse']);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('keeps a price per currency, one following the exchange rate, and shows any currency asked for', async () => {
    const { product, element } = await productWithDefault();
    const dollars = await put(`/api/pse/${element.ID}?currency=2`, { pse: [{ currency_id: 2, price: '15' }] });
    expect(dollars.body[0]).toMatchObject({ CURRENCY: 2, PRICE: '15.000000' });
    // The euro price stays; pounds follow the euro price times the pound's rate (0.89).
    expect((await get(`/api/pse/${element.ID}`)).body[0]).toMatchObject({ CURRENCY: 1, PRICE: '10.000000' });
    expect((await get(`/api/pse/${element.ID}?currency=3`)).body[0]).toMatchObject({ CURRENCY: 3, PRICE: '8.900000' });
    const following = await put(`/api/pse/${element.ID}?currency=2`, { pse: [{ currency_id: 2, use_exchange_rate: 1 }] });
    expect(following.body[0]).toMatchObject({ PRICE: '12.600000' });
    expect((await get(`/api/products/${product.ID}`)).body[0]).toMatchObject({ PRICE: '10.000000' });
  });

  it('moves the default flag in one write: the product follows its new default', async () => {
    const { product, element } = await productWithDefault();
    const variant = (await post('/api/pse', { pse: [{ product_id: product.ID, reference: ref(), currency_id: 1, price: '30', weight: '5', isdefault: 1 }] })).body[0];
    expect(variant.IS_DEFAULT).toBe(1);
    expect((await get(`/api/pse/${element.ID}`)).body[0]).toMatchObject({ IS_DEFAULT: 0 });
    expect((await get(`/api/products/${product.ID}`)).body[0]).toMatchObject({ PRICE: '30.000000', WEIGHT: '5.000000' });
    expect(problemFields(await put(`/api/pse/${variant.ID}`, { pse: [{ isdefault: 0 }] }))).toEqual(['pse[0].isdefault']);
  });

  it('makes sale elements of attribute values, one per attribute, each combination once per product', async () => {
    const { product } = await productWithDefault();
    const [size, colour] = [await createAttribute({ title: 'Size' }), await createAttribute({ title: 'Colour' })];
    const [small, large, red] = [await createAttributeAv(size.ID, { title: 'S' }), await createAttributeAv(size.ID, { title: 'L' }), await createAttributeAv(colour.ID, { title: 'Red' })];
    const made = await post('/api/pse', { pse: [{ product_id: product.ID, reference: ref(), currency_id: 1, price: 1, attribute_av: [red.ID, small.ID] }] });
    expect(made.status, made.text).toBe(201);
    expect(made.body[0].ATTRIBUTE_AVS).toEqual([small.ID, red.ID]);
    // The values a product's sale elements are made of (docs/api.md: `product=`), several ids: the index's.
    await index.caughtUp();
    expect(ids(await get(`/api/attribute-avs?product=${product.ID}&order=id`))).toEqual([small.ID, red.ID].sort((a, b) => a - b));
    expect(ids(await get(`/api/attribute-avs?product=${product.ID}&id=${red.ID}`))).toEqual([red.ID]);
    const again = await post('/api/pse', { pse: [{ product_id: product.ID, reference: ref(), currency_id: 1, price: 1, attribute_av: [small.ID, red.ID] }] });
    expect(again.status).toBe(409);
    expect(problemFields(await post('/api/pse', { pse: [{ product_id: product.ID, reference: ref(), currency_id: 1, price: 1, attribute_av: [small.ID, large.ID] }] }))).toEqual([
      'pse[0].attribute_av',
    ]);
    expect(problemFields(await post('/api/pse', { pse: [{ product_id: product.ID, reference: ref(), currency_id: 1, price: 1, attribute_av: [987654] }] }))).toEqual(['pse[0].attribute_av']);
    // A value a sale element is made of cannot go; it can once that sale element has gone.
    expect((await del(`/api/attribute-avs/${red.ID}`)).status).toBe(409);
    expect((await del(`/api/pse/${made.body[0].ID}`)).status).toBe(204);
    expect((await del(`/api/attribute-avs/${red.ID}`)).status).toBe(204);
  });

  it('shows its values in their attributes’ order as it is now: a move of an attribute reorders every row at once', async () => {
    const { product } = await productWithDefault();
    const [size, colour] = [await createAttribute({ title: 'Size' }), await createAttribute({ title: 'Colour' })];
    const [small, red] = [await createAttributeAv(size.ID, { title: 'S' }), await createAttributeAv(colour.ID, { title: 'Red' })];
    const made = await post('/api/pse', { pse: [{ product_id: product.ID, reference: ref(), currency_id: 1, price: 1, quantity: 5, attribute_av: [red.ID, small.ID] }] });
    const id = made.body[0].ID;
    const shown = async () => (await rowsEveryWay(product.ID, id, { onsale: true })).map((row) => row.ATTRIBUTE_AVS);
    expect(await shown()).toEqual(Array(5).fill([small.ID, red.ID]));
    // Colour moved before Size: the stored sale element unchanged, its rows reordered.
    expect((await put('/api/attributes', { id: colour.ID, position: size.POSITION - 1 })).status).toBe(201);
    expect(await shown()).toEqual(Array(5).fill([red.ID, small.ID]));
  });

  it('moves several attributes in one atomic batch: the attributes’ positions change once, in one transaction', async () => {
    const [a, b] = [await createAttribute(), await createAttribute()];
    const moved = await post('/api/attributes/batch', {
      atomic: true,
      rows: [
        { op: 'update', id: a.ID, position: b.POSITION },
        { op: 'update', id: b.ID, position: a.POSITION },
      ],
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.map((result: { STATUS: number }) => result.STATUS)).toEqual([201, 201]);
    expect((await get(`/api/attributes/${a.ID}`)).body[0].POSITION).toBe(b.POSITION);
  });
});

describe('stock', () => {
  it('changes by quantity_delta; a take past zero is a 409 naming what is left, and writes nothing', async () => {
    const { element } = await productWithDefault();
    expect((await put(`/api/pse/${element.ID}`, { pse: [{ quantity: 5 }] })).body[0]).toMatchObject({ QUANTITY: '5.000000' });
    expect((await put(`/api/pse/${element.ID}`, { pse: [{ quantity_delta: -2 }] })).body[0]).toMatchObject({ QUANTITY: '3.000000' });
    const before = await tableSnapshot();
    const oversold = await put(`/api/pse/${element.ID}`, { pse: [{ quantity_delta: '-3.5' }] });
    expect(oversold.status).toBe(409);
    expect(oversold.body.detail).toMatch(/has 3\.000000 in stock/);
    expect(await tableSnapshot()).toEqual(before);
    expect(problemFields(await put(`/api/pse/${element.ID}`, { pse: [{ quantity: 1, quantity_delta: 1 }] }))).toEqual(['pse[0].quantity_delta']);
  });

  it('is never oversold: 40 concurrent takes of one from a stock of 20 apply exactly 20', async () => {
    const { element } = await productWithDefault();
    await put(`/api/pse/${element.ID}`, { pse: [{ quantity: 20 }] });
    const answers = await Promise.all(Array.from({ length: 40 }, () => put(`/api/pse/${element.ID}`, { pse: [{ quantity_delta: -1 }] })));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(20);
    expect(statuses.filter((status) => status === 409)).toHaveLength(20);
    expect((await get(`/api/pse/${element.ID}`)).body[0]).toMatchObject({ QUANTITY: '0.000000', VERSION: 22 });
  });

  it('is listed by the index: a low-stock report across products, which a take moves an element into', async () => {
    const low = (await productWithDefault()).element;
    await put(`/api/pse/${low.ID}`, { pse: [{ quantity: 5 }] });
    expect((await put(`/api/pse/${low.ID}`, { pse: [{ quantity_delta: -4 }] })).body[0]).toMatchObject({ QUANTITY: '1.000000' });
    await index.caughtUp();
    const report = await get('/api/pse?max_stock=1&order=quantity&limit=100');
    expect(report.status, report.text).toBe(200);
    expect(ids(report)).toContain(low.ID);
    expect(report.body.every((row: { QUANTITY: string }) => Number(row.QUANTITY) <= 1)).toBe(true);
  });

  it('is found again by a rebuild of the index, which walks every product’s sale elements', async () => {
    const { product, element } = await productWithDefault();
    const variant = (await post('/api/pse', { pse: [{ product_id: product.ID, reference: ref(), currency_id: 1, price: 3 }] })).body[0];
    const walked: number[] = [];
    for await (const page of projection.walk()) walked.push(...page.map((document) => document.id));
    expect(walked).toEqual(expect.arrayContaining([element.ID, variant.ID]));
    expect(new Set(walked).size).toBe(walked.length);
  });
});

describe('DELETE /api/pse/{id}', () => {
  it('moves the default to the lowest-id other sale element, and keeps a product’s last one (409)', async () => {
    const { product, element } = await productWithDefault();
    const [a, b] = (
      await post('/api/pse', {
        pse: [
          { product_id: product.ID, reference: ref(), currency_id: 1, price: 7 },
          { product_id: product.ID, reference: ref(), currency_id: 1, price: 8 },
        ],
      })
    ).body;
    expect((await del(`/api/pse/${element.ID}`)).status).toBe(204);
    expect((await get(`/api/pse/${a.ID}`)).body[0]).toMatchObject({ IS_DEFAULT: 1 });
    expect((await get(`/api/products/${product.ID}`)).body[0]).toMatchObject({ PRICE: '7.000000' });
    expect((await del(`/api/pse/${b.ID}`)).status).toBe(204);
    const last = await del(`/api/pse/${a.ID}`);
    expect(last.status).toBe(409);
  });

  it('records each write in the feed as pse, and the product’s when it follows', async () => {
    const start = await cursorNow();
    const { product, element } = await productWithDefault();
    await put(`/api/pse/${element.ID}`, { pse: [{ price: 11 }] });
    const { changes } = await followChanges(start);
    const mine = changes.filter((change) => (change.RESOURCE === 'pse' && change.ENTITY_ID === element.ID) || (change.RESOURCE === 'product' && change.ENTITY_ID === product.ID));
    // One transaction's changes come in either order; each record's in the order of its versions.
    expect(mine.filter((change) => change.RESOURCE === 'product').map((change) => `${change.TYPE} ${change.VERSION}`)).toEqual(['created 1', 'updated 2']);
    const own = mine.filter((change) => change.RESOURCE === 'pse');
    expect(own.map((change) => `${change.TYPE} ${change.VERSION}`)).toEqual(['created 1', 'updated 2']);
    expect(own[1]!.CHANGES).toEqual([{ field: 'PRICE', locale: 'currency:1', before: '10.000000', after: '11.000000' }]);
  });
});

describe('a taxed price sent', () => {
  it('is turned into the untaxed price with the product’s rule, exactly, half up', async () => {
    const rule = await createTaxRule({ country: [64], tax: [1] });
    const { product } = await productWithDefault({ tax_rule: rule.ID });
    const made = await post('/api/pse', { pse: [{ product_id: product.ID, reference: ref(), currency_id: 1, price_with_tax: '100', sale_price_with_tax: '0.01' }] });
    // 100 / 1.2 = 83.3333333…, and 0.01 / 1.2 = 0.0083333…: half up to the millionth.
    expect(made.body[0]).toMatchObject({ PRICE: '83.333333', TAXED_PRICE: '100.000000', PROMO_PRICE: '0.008333', TAXED_PROMO_PRICE: '0.010000' });
  });
});

describe('a taxed price shown', () => {
  it('follows every change of the product’s rule at once: read alone, by product, in lists and in the answer to a take', async () => {
    const rule = await createTaxRule({ country: [64], tax: [1] });
    const { product, element } = await productWithDefault({ price: '100', tax_rule: rule.ID });
    await put(`/api/pse/${element.ID}`, { pse: [{ quantity: 10 }] });
    const taxed = async () => (await rowsEveryWay(product.ID, element.ID, { isnew: true })).map((row) => row.TAXED_PRICE);
    expect(await taxed()).toEqual(Array(5).fill('120.000000'));
    expect((await put('/api/tax-rules', { id: rule.ID, tax: [1, 2] })).status).toBe(201);
    expect(await taxed()).toEqual(Array(5).fill('132.000000'));
    expect((await put('/api/tax-rules', { id: rule.ID, country: [13] })).status).toBe(201);
    expect(await taxed()).toEqual(Array(5).fill('100.000000'));
  });
});

describe('POST /api/pse/batch', () => {
  it('syncs stock from an ERP: an upsert by reference sets what it sends, or creates the sale element it names', async () => {
    const { product, element } = await productWithDefault();
    const newRef = ref('ERP');
    const synced = await post('/api/pse/batch', {
      rows: [
        { op: 'upsert', reference: element.REF, quantity: 12 },
        { op: 'upsert', reference: newRef, product_id: product.ID, currency_id: 1, price: '9.5', quantity: 3 },
        { op: 'upsert', reference: ref('NOWHERE'), quantity: 1 },
      ],
    });
    expect(synced.status, synced.text).toBe(200);
    expect(synced.body.map((result: { STATUS: number }) => result.STATUS)).toEqual([201, 201, 400]);
    expect(synced.body[0].ROW).toMatchObject({ ID: element.ID, QUANTITY: '12.000000' });
    expect(synced.body[1].ROW).toMatchObject({ REF: newRef, PRODUCT_ID: product.ID, QUANTITY: '3.000000', PRICE: '9.500000' });
    expect(synced.body[2].PROBLEM.errors.map((error: { field: string }) => error.field).sort()).toEqual(['rows[2].currency_id', 'rows[2].product_id']);
    // Its detail names the row's fields as its errors do.
    expect(synced.body[2].PROBLEM.detail).toBe('rows[2].product_id: is required to create a sale element; rows[2].currency_id: is required to create a sale element');
    // A create of a reference another sale element holds: the row's own field named.
    const taken = await post('/api/pse/batch', { rows: [{ op: 'create', reference: element.REF.toLowerCase(), product_id: product.ID, currency_id: 1, price: '1' }] });
    expect(taken.body[0]).toMatchObject({ STATUS: 409, PROBLEM: { errors: [{ field: 'rows[0].reference' }] } });
    // Again: the same rows find what the first sync made.
    const again = await post('/api/pse/batch', { rows: [{ op: 'upsert', reference: newRef, quantity: 4 }] });
    expect(again.body[0]).toMatchObject({ STATUS: 201, ID: synced.body[1].ID });
  });

  it('syncs from ERPs at once: upserts of one new reference from concurrent batches make it once, and the others update it', async () => {
    const products = await Promise.all(Array.from({ length: 6 }, () => productWithDefault()));
    const refs = products.map(() => ref('RACE'));
    const syncs = await Promise.all(
      [1, 2, 3, 4].map((quantity) =>
        post('/api/pse/batch', { rows: refs.map((reference, k) => ({ op: 'upsert', reference, product_id: products[k]!.product.ID, currency_id: 1, price: '5', quantity })) }),
      ),
    );
    for (const sync of syncs) expect(sync.body.map((result: { STATUS: number; PROBLEM?: { detail: string } }) => result.PROBLEM?.detail ?? result.STATUS)).toEqual(refs.map(() => 201));
    await index.caughtUp();
    for (const reference of refs) {
      const [element, ...others] = (await get(`/api/pse?ref=${reference}`)).body;
      expect(others).toEqual([]);
      // Made by one sync, changed by each of the three others.
      expect(element.VERSION).toBe(4);
    }
  });
});
