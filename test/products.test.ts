import { describe, expect, it } from 'vitest';
import { del, expectOrderedBothWays, followPages, get, ids, post, problemFields, put, tableSnapshot } from './support/api.js';
import { createBrand, createProduct, createTaxRule, productInput, uniqueRef } from './support/fixtures.js';
import { CONTRACT_ROW_KEYS } from './support/contract-rows.js';

describe('POST /api/products', () => {
  it('creates a product and answers its row in the creation locale', async () => {
    const brand = await createBrand();
    const input = productInput({ locale: 'fr_FR', title: 'Chaise', chapo: 'Une chaise', weight: 2.5, visible: 1, brand_id: brand.ID });
    const response = await post('/api/products', input);
    expect(response.status).toBe(201);
    const [row] = response.body;
    expect(Object.keys(row)).toEqual([...CONTRACT_ROW_KEYS.product]);
    expect(row).toMatchObject({
      REF: input.ref,
      LOCALE: 'fr_FR',
      IS_TRANSLATED: 1,
      TITLE: 'Chaise',
      CHAPO: 'Une chaise',
      DESCRIPTION: '',
      POSTSCRIPTUM: '',
      PRICE: '19.990000',
      CURRENCY: 1,
      TAXED_PRICE: '23.988000',
      WEIGHT: '2.500000',
      VISIBLE: 1,
      DEFAULT_CATEGORY: 0,
      TAX_RULE_ID: 1,
      BRAND_ID: brand.ID,
      VERSION: 1,
      LOOP_COUNT: 1,
      LOOP_TOTAL: 1,
    });
    expect((await get(`/api/products/${row.ID}?lang=fr_FR`)).body).toEqual([row]);
  });

  it('stores prices exactly, from numbers and numeric strings', async () => {
    const cases: Array<[number | string, string]> = [
      [0.1, '0.100000'],
      [19.99, '19.990000'],
      [1e6, '1000000.000000'],
      ['10', '10.000000'],
      [0, '0.000000'],
      ['0.000001', '0.000001'],
      [123456789.123456, '123456789.123456'],
      ['1.500000', '1.500000'],
    ];
    for (const [price, expected] of cases) {
      const { row } = await createProduct({ price });
      expect(row.PRICE).toBe(expected);
      expect((await get(`/api/products/${row.ID}`)).body[0].PRICE).toBe(expected);
    }
  });

  it('computes TAXED_PRICE with the rule, in order and compounding, for France only', async () => {
    const compound = await createTaxRule({ tax: [1, 2] });
    expect((await createProduct({ price: '100', tax_rule: compound.ID })).row.TAXED_PRICE).toBe('132.000000');
    expect((await createProduct({ price: 0.1, tax_rule: 2 })).row.TAXED_PRICE).toBe('0.110000');
    const elsewhere = await createTaxRule({ country: [13] });
    expect((await createProduct({ price: '19.99', tax_rule: elsewhere.ID })).row.TAXED_PRICE).toBe('19.990000');
  });

  it('uses the default tax rule for tax_rule 0', async () => {
    const defaultRule = (await get('/api/tax-rules?limit=100')).body.find((r: { IS_DEFAULT: number }) => r.IS_DEFAULT === 1);
    const { row } = await createProduct({ tax_rule: 0 });
    expect(row.TAX_RULE_ID).toBe(defaultRule.ID);
  });

  it('refuses invalid fields, naming each, and writes nothing', async () => {
    const before = await tableSnapshot();
    const response = await post('/api/products', {
      ...productInput(),
      price: '-1',
      currency: 999,
      tax_rule: 'one',
      weight: '1.1234567',
      visible: 'yes',
      brand_id: -1,
      default_category: 1.5,
      locale: 'fr',
      color: 'red',
    });
    expect(response.status).toBe(400);
    expect(problemFields(response).sort()).toEqual(['brand_id', 'color', 'currency', 'default_category', 'locale', 'price', 'tax_rule', 'visible', 'weight'].sort());
    expect(problemFields(await post('/api/products', {})).sort()).toEqual(['currency', 'default_category', 'locale', 'price', 'ref', 'tax_rule', 'title']);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('refuses a tax rule that does not exist, and writes nothing', async () => {
    const before = await tableSnapshot();
    const response = await post('/api/products', productInput({ tax_rule: 99999 }));
    expect(response.status).toBe(400);
    expect(problemFields(response)).toEqual(['tax_rule']);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('accepts every spelling of visible', async () => {
    for (const [visible, expected] of [
      [true, 1],
      [false, 0],
      [1, 1],
      [0, 0],
      ['1', 1],
      ['0', 0],
    ] as const) {
      expect((await createProduct({ visible })).row.VISIBLE).toBe(expected);
    }
    expect((await createProduct()).row.VISIBLE).toBe(0);
  });

  it('keeps refs unique, case-insensitively, also under 20 concurrent creates', async () => {
    const { input } = await createProduct();
    expect((await post('/api/products', productInput({ ref: input.ref.toLowerCase() }))).status).toBe(409);
    const ref = uniqueRef('RACE');
    const responses = await Promise.all(Array.from({ length: 20 }, () => post('/api/products', productInput({ ref }))));
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(19);
    expect((await get(`/api/products?ref=${ref}`)).body).toHaveLength(1);
  });
});

describe('GET /api/products/{productId}', () => {
  it('shows a taxed price that follows every change of its tax rule at once, read by read and in lists', async () => {
    const rule = await createTaxRule({ country: [64], tax: [1] });
    const { row } = await createProduct({ price: '100', tax_rule: rule.ID });
    const taxed = async () => [(await get(`/api/products/${row.ID}`)).body[0].TAXED_PRICE, (await get(`/api/products?ref=${row.REF}`)).body[0].TAXED_PRICE];
    expect(await taxed()).toEqual(['120.000000', '120.000000']);
    expect((await put('/api/tax-rules', { id: rule.ID, tax: [1, 2] })).status).toBe(201);
    expect(await taxed()).toEqual(['132.000000', '132.000000']);
    expect((await put('/api/tax-rules', { id: rule.ID, country: [13] })).status).toBe(201);
    expect(await taxed()).toEqual(['100.000000', '100.000000']);
  });

  it('falls back to the default language with IS_TRANSLATED 0', async () => {
    const { row } = await createProduct({ locale: 'en_US', title: 'Table' });
    const german = await get(`/api/products/${row.ID}?lang=de_DE`);
    expect(german.body[0]).toMatchObject({ LOCALE: 'de_DE', IS_TRANSLATED: 0, TITLE: 'Table' });
  });

  it('answers 404 for an unknown or malformed id', async () => {
    expect((await get('/api/products/55555555')).status).toBe(404);
    expect((await get('/api/products/x1')).status).toBe(404);
  });
});

describe('GET /api/products', () => {
  it('sorts and counts a ref starting with U+10FFFF among the others, both ways', async () => {
    const { row } = await createProduct({ ref: `\u{10FFFF}${uniqueRef()}` });
    const total = Number((await get('/api/products?limit=1')).headers['x-total-count']);
    for (const order of ['ref', 'ref_reverse']) {
      expect(Number((await get(`/api/products?order=${order}&limit=1`)).headers['x-total-count']), order).toBe(total);
      const all = await followPages(`/api/products?order=${order}&limit=7`);
      expect(
        all.map((r: { ID: number }) => r.ID),
        order,
      ).toContain(row.ID);
      expect(all, order).toHaveLength(total);
    }
    expect((await get('/api/products?order=ref_reverse&limit=1')).body[0].ID).toBe(row.ID);
  });

  it('orders by id and ref, both ways, with the total', async () => {
    for (const ref of ['b-ref', 'A-ref', 'c-ref']) await createProduct({ ref: uniqueRef(ref) });
    await expectOrderedBothWays('/api/products', 'ref', 'REF');
  });

  it('filters by visibility through its index, without a total, and pages it', async () => {
    const shown = await createProduct({ visible: 1 });
    const hidden = await createProduct({ visible: 0 });
    const visible = await get('/api/products?visible=1&limit=100');
    expect(visible.body.every((r: { VISIBLE: number }) => r.VISIBLE === 1)).toBe(true);
    expect(ids(visible)).toContain(shown.row.ID);
    expect(ids(visible)).not.toContain(hidden.row.ID);
    expect(visible.headers['x-total-count']).toBeUndefined();
    const invisible = await get('/api/products?visible=0&order=ref&limit=100');
    expect(ids(invisible)).toContain(hidden.row.ID);
    const page = await get('/api/products?visible=0&limit=1');
    expect((await get(/^<([^>]+)>/.exec(page.headers.link!)![1]!)).status).toBe(200);
    expect(problemFields(await get('/api/products?visible=2'))).toEqual(['visible']);
  });

  it('filters by ref and shows the lang asked for', async () => {
    const { row, input } = await createProduct({ locale: 'fr_FR', title: 'Lampe' });
    const found = await get(`/api/products?ref=${input.ref}&lang=fr_FR`);
    expect(found.body).toEqual([row]);
    expect((await get(`/api/products?ref=${input.ref}&visible=1`)).body).toEqual([]);
    const english = await get(`/api/products?ref=${input.ref}`);
    expect(english.body[0]).toMatchObject({ LOCALE: 'en_US', IS_TRANSLATED: 0, TITLE: '' });
  });

  it('pages through every product with the cursor', async () => {
    for (let i = 0; i < 3; i++) await createProduct();
    const all = ids(await get('/api/products?limit=100&order=ref_reverse'));
    const seen = await followPages<{ ID: number }>('/api/products?limit=2&order=ref_reverse');
    expect(seen.map((row) => row.ID)).toEqual(all);
  });
});

describe('PUT /api/products/{productId}', () => {
  it('changes only the fields sent, texts per locale, and answers 204', async () => {
    const { row } = await createProduct({ locale: 'en_US', title: 'Desk', description: 'Wooden' });
    const response = await put(`/api/products/${row.ID}`, { price: '25.5', locale: 'fr_FR', title: 'Bureau', visible: true });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    const english = (await get(`/api/products/${row.ID}`)).body[0];
    expect(english).toMatchObject({ TITLE: 'Desk', DESCRIPTION: 'Wooden', PRICE: '25.500000', TAXED_PRICE: '30.600000', VISIBLE: 1, VERSION: 2 });
    expect((await get(`/api/products/${row.ID}?lang=fr_FR`)).body[0]).toMatchObject({ TITLE: 'Bureau', IS_TRANSLATED: 1 });
    await put(`/api/products/${row.ID}`, { locale: 'en_US', description: 'Oak' });
    expect((await get(`/api/products/${row.ID}`)).body[0]).toMatchObject({ TITLE: 'Desk', DESCRIPTION: 'Oak', VERSION: 3 });
  });

  it('moves the product between visibility lists and to another tax rule', async () => {
    const { row } = await createProduct({ visible: 0 });
    await put(`/api/products/${row.ID}`, { visible: 1, tax_rule: 2 });
    expect(ids(await get('/api/products?visible=1&limit=100'))).toContain(row.ID);
    expect(ids(await get('/api/products?visible=0&limit=100'))).not.toContain(row.ID);
    expect((await get(`/api/products/${row.ID}`)).body[0]).toMatchObject({ TAX_RULE_ID: 2, TAXED_PRICE: '21.989000' });
  });

  it('changes the ref, freeing the old one, and refuses a taken ref (409)', async () => {
    const { row, input } = await createProduct();
    const other = await createProduct();
    expect((await put(`/api/products/${row.ID}`, { ref: other.input.ref })).status).toBe(409);
    const ref = uniqueRef('NEW');
    expect((await put(`/api/products/${row.ID}`, { ref })).status).toBe(204);
    expect((await get(`/api/products?ref=${ref}`)).body[0].ID).toBe(row.ID);
    expect((await createProduct({ ref: input.ref })).row.REF).toBe(input.ref);
  });

  it('refuses texts without a locale, a new locale without a title, bad fields and an empty body; writes nothing', async () => {
    const { row } = await createProduct();
    const before = await tableSnapshot();
    expect(problemFields(await put(`/api/products/${row.ID}`, { title: 'No locale' }))).toEqual(['locale']);
    expect(problemFields(await put(`/api/products/${row.ID}`, { locale: 'es_ES', chapo: 'sin título' }))).toEqual(['title']);
    expect(problemFields(await put(`/api/products/${row.ID}`, { price: 'cheap', id: 3 })).sort()).toEqual(['id', 'price']);
    expect((await put(`/api/products/${row.ID}`, {})).status).toBe(400);
    expect(problemFields(await put(`/api/products/${row.ID}`, { tax_rule: 424242 }))).toEqual(['tax_rule']);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('refuses a body that is not valid UTF-8 and writes nothing', async () => {
    const { row } = await createProduct();
    const before = await tableSnapshot();
    const body = Buffer.concat([Buffer.from('{"ref": "'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]);
    const response = await put(`/api/products/${row.ID}`, body);
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ field: 'body', message: 'is not valid UTF-8' }]);
    expect(await tableSnapshot()).toEqual(before);
  });

  it('answers 404 for an unknown id and 412 for a stale If-Match', async () => {
    expect((await put('/api/products/8888888', { price: 1 })).status).toBe(404);
    const { row } = await createProduct();
    expect((await put(`/api/products/${row.ID}`, { price: 1 }, { headers: { 'if-match': '"4"' } })).status).toBe(412);
    expect((await put(`/api/products/${row.ID}`, { price: 1 }, { headers: { 'if-match': '"1"' } })).status).toBe(204);
  });
});

describe('DELETE /api/products/{productId}', () => {
  it('deletes the product, frees its ref and updates the total', async () => {
    const { row, input } = await createProduct();
    const total = Number((await get('/api/products')).headers['x-total-count']);
    expect((await del(`/api/products/${row.ID}`)).status).toBe(204);
    expect((await get(`/api/products/${row.ID}`)).status).toBe(404);
    expect(Number((await get('/api/products')).headers['x-total-count'])).toBe(total - 1);
    expect((await createProduct({ ref: input.ref })).row.REF).toBe(input.ref);
  });
});

describe('tax-rule integrity', () => {
  it('refuses to delete a rule that products use (409), and deletes it after its last product is gone', async () => {
    const rule = await createTaxRule();
    const first = await createProduct({ tax_rule: rule.ID });
    const second = await createProduct({ tax_rule: 1 });
    await put(`/api/products/${second.row.ID}`, { tax_rule: rule.ID });
    const before = await tableSnapshot();
    const refused = await del(`/api/tax-rules/${rule.ID}`);
    expect(refused.status).toBe(409);
    expect(await tableSnapshot()).toEqual(before);
    await del(`/api/products/${first.row.ID}`);
    await put(`/api/products/${second.row.ID}`, { tax_rule: 2 });
    expect((await del(`/api/tax-rules/${rule.ID}`)).status).toBe(204);
    expect(problemFields(await post('/api/products', productInput({ tax_rule: rule.ID })))).toEqual(['tax_rule']);
  });

  it('refuses tax_rule 0 when there is no default rule', async () => {
    const rule = await createTaxRule({ default: true });
    expect((await del(`/api/tax-rules/${rule.ID}`)).status).toBe(204);
    expect(problemFields(await post('/api/products', productInput({ tax_rule: 0 })))).toEqual(['tax_rule']);
    expect((await put('/api/tax-rules', { id: 1, default: true })).status).toBe(201);
  });
});
