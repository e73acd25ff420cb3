/**
 * `npm run import` from a Thelia 2.4 store in a real MariaDB (test/support/thelia-store.ts), into
 * this file's table, checked through the API as a user would. The steps build on each other: a dry
 * run, the import, what it made, a second run, then writes through the API over the imported data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { del, get, post, put, tableSnapshot } from './support/api.js';
import { cursorNow, followChanges } from './support/changes.js';
import { createProduct, customerInput, productInput } from './support/fixtures.js';
import { runImport, skippedFields, type ImportRun } from './support/import-cli.js';
import { READER, startMariaDb, type MariaDb } from './support/mariadb.js';
import { API_PRODUCT_REF, createTheliaStore, PASSWORDS } from './support/thelia-store.js';
import { insertRows, THELIA_TABLES } from './support/thelia-tables.js';

let mariadb: MariaDb;
let storeUrl: string;
let apiProductId: number;

beforeAll(async () => {
  mariadb = await startMariaDb();
  storeUrl = await createTheliaStore(mariadb, 'shop');
  // A product made through the API before the import: it holds id 1 and a ref the store has too.
  apiProductId = (await createProduct({ ref: API_PRODUCT_REF, tax_rule: 2 })).row.ID;
}, 180_000);

afterAll(() => mariadb?.stop());

const SKIPPED_TAX_RULES = {
  4: ['tax_rule_country'],
  5: ['tax_rule_country.tax_id'],
  6: ['tax_rule_country.country_id'],
  7: ['tax_rule_country.state_id'],
  8: ['tax_rule.is_default'],
  9: ['tax_rule_country'],
  10: ['tax_rule_i18n[xx_XX].locale'],
  11: ['tax_rule_country.position'],
};
/** 9's parent is not in the store; 10 is 9's child. */
const SKIPPED_CATEGORIES = {
  9: ['category.parent'],
  10: ['category.parent'],
};
const SKIPPED_PRODUCTS = {
  1: ['product.id'],
  20: ['product.tax_rule_id'],
  21: ['product.tax_rule_id'],
  22: ['product.ref'],
  23: ['product_sale_elements.is_default'],
  24: ['product_price.price'],
  25: ['product_price.price'],
  26: ['product_i18n.locale'],
  27: ['product_i18n[en_US].description'],
  28: ['product_i18n'],
  29: ['product.tax_rule_id'],
  30: ['product'],
};
/** Every product skipped takes its sale elements with it; product 10's variants the API cannot hold. */
const SKIPPED_SALE_ELEMENTS = {
  ...Object.fromEntries([10, 200, 210, 220, 240, 260, 270, 280, 290, 300].map((id) => [id, ['product_sale_elements.product_id']])),
  230: ['product_sale_elements.product_id', 'product_price'],
  250: ['product_sale_elements.product_id', 'product_price[1].price'],
  103: ['attribute_combination.attribute_av_id'],
  104: ['product_sale_elements.quantity'],
  105: ['product_sale_elements.ref'],
  106: ['product_price'],
};
const SKIPPED_CUSTOMERS = {
  2: ['customer.email'],
  3: ['customer.title_id'],
  4: ['customer.lang_id'],
  5: ['address.country_id'],
  6: ['address.zipcode'],
  7: ['address.is_default'],
  8: ['customer.password'],
  9: ['customer.email'],
  12: ['customer.firstname'],
};

/** What the first run makes of the store (a dry run says the same). */
const FIRST_RUN = {
  'tax rule': { read: 11, imported: 2, updated: 0, unchanged: 1, kept: 0, conflict: 0, missing: 0, deleted: 0, skipped: 8 },
  category: { read: 5, imported: 3, updated: 0, unchanged: 0, kept: 0, conflict: 0, missing: 0, deleted: 0, skipped: 2 },
  brand: { read: 2, imported: 2, updated: 0, unchanged: 0, kept: 0, conflict: 0, missing: 0, deleted: 0, skipped: 0 },
  product: { read: 16, imported: 4, updated: 0, unchanged: 0, kept: 0, conflict: 0, missing: 0, deleted: 0, skipped: 12 },
  attribute: { read: 2, imported: 2, updated: 0, unchanged: 0, kept: 0, conflict: 0, missing: 0, deleted: 0, skipped: 0 },
  'attribute value': { read: 4, imported: 3, updated: 0, unchanged: 0, kept: 0, conflict: 0, missing: 0, deleted: 0, skipped: 1 },
  'sale element': { read: 22, imported: 6, updated: 0, unchanged: 0, kept: 0, conflict: 0, missing: 0, deleted: 0, skipped: 16 },
  customer: { read: 12, imported: 3, updated: 0, unchanged: 0, kept: 0, conflict: 0, missing: 0, deleted: 0, skipped: 9 },
};

/** The values the import changes on their way in, each with the Thelia row and column it came from. */
const NORMALIZED = [
  { kind: 'category', id: 3, table: 'category_i18n', row: 3, locale: 'fr_FR', column: 'title', what: 'trimmed', before: ' Lampes ', after: 'Lampes' },
  { kind: 'brand', id: 3, table: 'brand_i18n', row: 3, locale: 'fr_FR', column: 'title', what: 'trimmed', before: ' Acmé ', after: 'Acmé' },
  { kind: 'brand', id: 5, table: 'brand_i18n', row: 5, column: 'title', what: 'no text in any locale: imported with empty texts', before: null, after: null },
  { kind: 'product', id: 11, table: 'product_i18n', row: 11, locale: 'en_US', column: 'title', what: 'trimmed', before: '  Stool  ', after: 'Stool' },
  { kind: 'product', id: 11, table: 'product_sale_elements', row: 110, column: 'weight', what: 'empty: 0', before: null, after: 0 },
  { kind: 'attribute', id: 4, table: 'attribute_i18n', row: 4, column: 'title', what: 'no text in any locale: imported with empty texts', before: null, after: null },
  { kind: 'attribute value', id: 6, table: 'attribute_av_i18n', row: 6, column: 'title', what: 'no text in any locale: imported with empty texts', before: null, after: null },
  { kind: 'sale element', id: 101, table: 'product_sale_elements', row: 101, column: 'ean_code', what: 'not a GTIN with a valid check digit: left empty', before: 'no-ean', after: '' },
  { kind: 'sale element', id: 110, table: 'product_sale_elements', row: 110, column: 'weight', what: 'empty: 0', before: null, after: 0 },
  { kind: 'customer', id: 1, table: 'address', row: 2, column: 'city', what: 'trimmed', before: ' Paris ', after: 'Paris' },
  { kind: 'customer', id: 1, table: 'customer', row: 1, column: 'lang_id', what: "empty: the store's default language", before: null, after: 1 },
  { kind: 'customer', id: 50, table: 'customer', row: 50, column: 'firstname', what: 'normalized to NFC', before: 'Je\u0301ro\u0302me', after: 'Jérôme' },
  { kind: 'customer', id: 50, table: 'customer', row: 50, column: 'email', what: 'trimmed', before: 'last@example.com\u00a0', after: 'last@example.com' },
];

const NO_RECORDS = { imported: [], updated: [], unchanged: [], kept: [], conflict: [], missing: [], deleted: [], skipped: [] };

const problemOf = (run: ImportRun, kind: string, id: number) => run.report!.skipped.find((s) => s.kind === kind && s.id === id)?.problems[0]?.message;

describe('npm run import', () => {
  let first: ImportRun;

  it('checks the whole store in a dry run and writes nothing', async () => {
    const before = await tableSnapshot();
    const dry = await runImport(['--from', storeUrl, '--dry-run']);
    expect(dry.status, dry.stderr).toBe(2);
    expect(dry.report!.dryRun).toBe(true);
    expect(dry.report!.counts).toEqual(FIRST_RUN);
    expect(skippedFields(dry.report!, 'customer')).toEqual(SKIPPED_CUSTOMERS);
    expect(skippedFields(dry.report!, 'product')).toEqual(SKIPPED_PRODUCTS);
    expect(await tableSnapshot()).toEqual(before);
  }, 180_000);

  it('imports what the API can represent and reports each skipped record with its Thelia id, column and reason (exit 2)', async () => {
    first = await runImport(['--from', storeUrl]);
    expect(first.status, first.stderr).toBe(2);
    expect(first.report!.counts).toEqual(FIRST_RUN);
    // Each kind its resource folder declares, in the order the run brought them (the table of stdout's too).
    expect(first.report!.kinds.map(({ kind }) => kind)).toEqual(['tax rule', 'category', 'brand', 'product', 'attribute', 'attribute value', 'sale element', 'customer']);
    expect(first.stdout).toMatch(/\n\s+read.*\ntax rules .*\ncategories .*\nbrands .*\nproducts .*\nattributes .*\nattribute values .*\nsale elements .*\ncustomers /);
    expect(skippedFields(first.report!, 'tax rule')).toEqual(SKIPPED_TAX_RULES);
    expect(skippedFields(first.report!, 'category')).toEqual(SKIPPED_CATEGORIES);
    expect(skippedFields(first.report!, 'product')).toEqual(SKIPPED_PRODUCTS);
    expect(skippedFields(first.report!, 'sale element')).toEqual(SKIPPED_SALE_ELEMENTS);
    expect(skippedFields(first.report!, 'customer')).toEqual(SKIPPED_CUSTOMERS);

    expect(problemOf(first, 'tax rule', 4)).toMatch(/countries apply different taxes/);
    expect(problemOf(first, 'tax rule', 5)).toBe('7 is not a known tax id');
    expect(problemOf(first, 'tax rule', 8)).toMatch(/^tax rule 1 is the default too/);
    expect(problemOf(first, 'product', 1)).toMatch(/^id 1 is another product's in the table \(created 20\d\d-.*\), which is left as it is$/);
    expect(problemOf(first, 'product', 20)).toMatch(/^tax rule 4 was skipped \(tax_rule_country: its countries apply different taxes/);
    expect(problemOf(first, 'product', 22)).toBe(`product ${apiProductId} already has "api-one" (compared case-insensitively)`);
    expect(problemOf(first, 'product', 29)).toBe('tax rule 99 is not a tax rule of the source');
    expect(problemOf(first, 'product', 30)).toMatch(/^takes about 4\d\d KB, more than the 400 KB a DynamoDB item holds$/);
    expect(problemOf(first, 'sale element', 230)).toBe('product 23 was skipped (product_sale_elements.is_default: the product has no default sale element)');
    expect(problemOf(first, 'sale element', 103)).toBe('attribute value 7 was skipped (attribute_av.attribute_id: attribute 99 is not an attribute of the source)');
    expect(problemOf(first, 'sale element', 104)).toBe('-2 is below 0: the API never holds a stock below 0');
    expect(problemOf(first, 'sale element', 105)).toBe('sale element 101 already has "pse-101" (compared case-insensitively)');
    expect(problemOf(first, 'customer', 2)).toBe('customer 1 already has "ann.smith@example.com" (compared case-insensitively)');
    expect(problemOf(first, 'customer', 6)).toBe('does not match the zip code format of the country');

    // Every record under its outcome, and every value changed on the way in.
    expect(first.report!.records).toEqual({
      'tax rule': { ...NO_RECORDS, imported: [1, 3], unchanged: [2], skipped: [4, 5, 6, 7, 8, 9, 10, 11] },
      category: { ...NO_RECORDS, imported: [3, 7, 8], skipped: [9, 10] },
      brand: { ...NO_RECORDS, imported: [3, 5] },
      product: { ...NO_RECORDS, imported: [10, 11, 12, 40], skipped: [1, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30] },
      attribute: { ...NO_RECORDS, imported: [1, 4] },
      'attribute value': { ...NO_RECORDS, imported: [1, 2, 6], skipped: [7] },
      'sale element': { ...NO_RECORDS, imported: [100, 101, 102, 110, 120, 400], skipped: Object.keys(SKIPPED_SALE_ELEMENTS).map(Number) },
      customer: { ...NO_RECORDS, imported: [1, 10, 50], skipped: [2, 3, 4, 5, 6, 7, 8, 9, 12] },
    });
    expect(first.report!.normalized).toEqual(NORMALIZED);
    expect((await get('/api/customers/50')).body[0]).toMatchObject({ FIRSTNAME: 'Jérôme', EMAIL: 'last@example.com' });

    // The same report, for a person, on stdout; progress on stderr; the password nowhere.
    expect(first.stdout).toMatch(/^Import from mysql:\/\/thelia_reader:\*\*\*@127\.0\.0\.1:\d+\/shop into test-/);
    expect(first.stdout).toContain('customer 9: customer.email: must be a valid email address');
    expect(first.stdout).toContain('  products imported: 10–12, 40\n');
    expect(first.stdout).toContain('  customers skipped: 2–9, 12\n');
    expect(first.stdout).toContain('customer 50: customer.email (id 50): trimmed, "last@example.com\\u00a0" → "last@example.com"');
    expect(first.stdout).toContain('customer 50: customer.firstname (id 50): normalized to NFC, "Je\\u0301ro\\u0302me" → "Jérôme"');
    expect(first.stdout).toContain('product 11: product_i18n.title (id 11, en_US): trimmed, "  Stool  " → "Stool"');
    expect(first.stderr).toMatch(/customers\s+12\/12 \(100%\)/);
    for (const output of [first.stdout, first.stderr]) {
      expect(output).not.toContain(READER.password);
      expect(output).not.toContain(encodeURIComponent(READER.password));
      expect(output).not.toMatch(/\$2[aby]\$/);
    }
  }, 180_000);

  it("keeps a customer with Thelia id and reference, title, language (the store's default when NULL: French here), default address and dates", async () => {
    const response = await get('/api/customers/1');
    expect(response.status).toBe(200);
    expect(response.body[0]).toMatchObject({
      ID: 1,
      // Thelia's own reference, kept.
      REF: 'CUS1',
      TITLE: 2,
      FIRSTNAME: 'Ann',
      LASTNAME: 'Smith',
      EMAIL: 'Ann.Smith@Example.com',
      LANG_ID: 1,
      ADDRESS1: '2 rue de la Paix',
      ADDRESS2: 'Bâtiment B',
      ADDRESS3: '3e étage',
      ZIPCODE: '75002',
      CITY: 'Paris',
      COUNTRY: 64,
      VERSION: 1,
      CREATE_DATE: '2015-06-01T10:20:30.000Z',
      UPDATE_DATE: '2022-02-02T02:02:02.000Z',
    });
    expect((await get('/api/customers/10')).body[0]).toMatchObject({ LANG_ID: 1, COUNTRY: 20, ZIPCODE: '1000', UPDATE_DATE: '2016-01-01T00:00:00.000Z' });
    expect((await get('/api/customers/2')).status).toBe(404);
  });

  it('keeps categories with their ids, parents (a parent with a higher id than its child too), texts, visibility and positions, and counts their products in', async () => {
    const chairs = (await get('/api/categories/7?lang=en_US')).body[0];
    expect(chairs).toMatchObject({
      ID: 7,
      PARENT: 8,
      TITLE: 'Chairs',
      DESCRIPTION: 'Seats',
      VISIBLE: 0,
      POSITION: 1,
      VERSION: 1,
      CREATE_DATE: '2019-05-02T10:00:00.000Z',
      UPDATE_DATE: '2019-05-03T10:00:00.000Z',
    });
    expect((await get('/api/categories/3?lang=fr_FR')).body[0]).toMatchObject({ TITLE: 'Lampes', IS_TRANSLATED: 1 });
    expect((await get('/api/categories?parent=8')).body.map((row: { ID: number }) => row.ID)).toEqual([7]);
    expect((await get('/api/categories/9')).status).toBe(404);
    expect((await get('/api/products?category_default=7')).body.map((row: { ID: number }) => row.ID)).toEqual([10]);
    // Product 10 and category 7 refer to them: neither category can go.
    expect((await del('/api/categories/7')).status).toBe(409);
    expect((await del('/api/categories/8')).status).toBe(409);
  });

  it("keeps a product's default sale element price and weight, every locale's texts, visibility, brand, default category and rule", async () => {
    const english = (await get('/api/products/10?lang=en_US')).body[0];
    expect(english).toMatchObject({
      ID: 10,
      REF: 'CHAIR-10',
      TITLE: 'Chair',
      CHAPO: 'A chair',
      DESCRIPTION: 'Oak.\nHand made.',
      POSTSCRIPTUM: 'Ships in a week',
      PRICE: '120.500000',
      CURRENCY: 1,
      // Rule 3: 10 % then 20 %, compounding, for the shop's country.
      TAXED_PRICE: '159.060000',
      WEIGHT: '2.500000',
      VISIBLE: 1,
      BRAND_ID: 3,
      DEFAULT_CATEGORY: 7,
      TAX_RULE_ID: 3,
      VERSION: 1,
      CREATE_DATE: '2019-03-04T05:06:07.000Z',
      UPDATE_DATE: '2021-07-08T09:10:11.000Z',
    });
    expect((await get('/api/products/10?lang=fr_FR')).body[0]).toMatchObject({ IS_TRANSLATED: 1, TITLE: 'Chaise', DESCRIPTION: 'Chêne.', CHAPO: '' });
    expect((await get('/api/products/10?lang=cs_CZ')).body[0]).toMatchObject({ IS_TRANSLATED: 0 });
    expect((await get('/api/products/11')).body[0]).toMatchObject({ TITLE: 'Stool', WEIGHT: '0.000000', BRAND_ID: 0, DEFAULT_CATEGORY: 0, VISIBLE: 0, TAX_RULE_ID: 1 });
    expect((await get('/api/products/1')).body[0]).toMatchObject({ REF: API_PRODUCT_REF });
    // Its default sale element keeps Thelia's id (100), with the product's price and weight.
    expect((await get('/api/pse/product/10')).body[0]).toMatchObject({ ID: 100, PRODUCT_ID: 10, IS_DEFAULT: 1, PRICE: '120.500000', WEIGHT: '2.500000' });
    // Ids the API hands out later come after the source's sale elements'.
    const variant = await post('/api/pse', { pse: [{ product_id: 10, reference: 'CHAIR-10-API', currency_id: 1, price: 1 }] });
    expect(variant.status, variant.text).toBe(201);
    expect(variant.body[0].ID).toBeGreaterThan(400);
    expect((await del(`/api/pse/${variant.body[0].ID}`)).status).toBe(204);
  });

  it("keeps a product's sale elements with Thelia's ids, stock, EAN, flags, prices in every currency and attribute values, and counts the values they use", async () => {
    const rows = (await get('/api/pse/product/10')).body;
    expect(rows.map((row: { ID: number }) => row.ID)).toEqual([100, 101, 102]);
    // The default its product's import made took the whole source row: its ref, EAN, stock, promo price and dates.
    expect(rows[0]).toMatchObject({
      REF: 'PSE-100',
      EAN_CODE: '4006381333931',
      QUANTITY: '7.000000',
      IS_DEFAULT: 1,
      PRICE: '120.500000',
      PROMO_PRICE: '99.900000',
      CREATE_DATE: '2019-03-04T05:06:07.000Z',
      UPDATE_DATE: '2021-07-08T09:10:11.000Z',
    });
    expect(rows[1]).toMatchObject({
      REF: 'PSE-101',
      EAN_CODE: '',
      QUANTITY: '2.500000',
      IS_PROMO: 1,
      IS_DEFAULT: 0,
      WEIGHT: '9.000000',
      PRICE: '99.000000',
      PROMO_PRICE: '89.500000',
      ATTRIBUTE_AVS: [1],
    });
    // Values by their attribute's position (attribute 1, then 4), whatever order Thelia lists them in.
    expect(rows[2]).toMatchObject({ IS_NEW: 1, QUANTITY: '0.000000', PRICE: '95.000000', ATTRIBUTE_AVS: [2, 6] });
    // Dollars: the default's own price; the variant's follows euros times the rate (from_default_currency).
    expect((await get('/api/pse/100?currency=2')).body[0]).toMatchObject({ CURRENCY: 2, PRICE: '150.000000' });
    expect((await get('/api/pse/101?currency=2')).body[0]).toMatchObject({ CURRENCY: 2, PRICE: '124.740000', PROMO_PRICE: '112.770000' });
    expect((await get('/api/pse/104')).status).toBe(404);
    // A value a sale element is made of stays; an imported stock is taken as any other.
    for (const value of [1, 2, 6]) expect((await del(`/api/attribute-avs/${value}`)).status).toBe(409);
    const take = await put('/api/pse/102', { pse: [{ quantity_delta: -1 }] });
    expect(take.status).toBe(409);
    expect(take.body.detail).toMatch(/has 0\.000000 in stock/);
  });

  it('keeps brands, attributes and values with their ids, texts (empty where Thelia had none), positions and dates, and counts what refers to them', async () => {
    expect((await get('/api/brands/3?lang=en_US')).body[0]).toMatchObject({
      ID: 3,
      TITLE: 'Acme',
      CHAPO: 'Since 1900',
      META_TITLE: 'Acme furniture',
      META_KEYWORDS: 'chairs',
      VISIBLE: 1,
      POSITION: 1,
      CREATE_DATE: '2018-01-01T08:00:00.000Z',
      UPDATE_DATE: '2018-02-02T08:00:00.000Z',
    });
    expect((await get('/api/brands/3?lang=fr_FR')).body[0]).toMatchObject({ TITLE: 'Acmé', IS_TRANSLATED: 1 });
    expect((await get('/api/brands/5')).body[0]).toMatchObject({ TITLE: '', VISIBLE: 0, POSITION: 2 });
    expect((await get('/api/brands?product=10')).body.map((row: { ID: number }) => row.ID)).toEqual([3]);
    expect((await get('/api/attributes/1?lang=fr_FR')).body[0]).toMatchObject({ TITLE: 'Taille' });
    expect((await get('/api/attribute-avs?attribute=1')).body.map((row: { ID: number; TITLE: string }) => [row.ID, row.TITLE])).toEqual([
      [2, 'S'],
      [1, 'M'],
    ]);
    expect((await get('/api/attribute-avs/6')).body[0]).toMatchObject({ ATTRIBUTE_ID: 4, TITLE: '' });
    expect((await get('/api/attribute-avs/7')).status).toBe(404);
    // Product 10 names brand 3; attribute 1 has values: neither can go.
    expect((await del('/api/brands/3')).status).toBe(409);
    expect((await del('/api/attributes/1')).status).toBe(409);
  });

  it("keeps a tax rule's countries and taxes in position order, its texts, and which rule is the default", async () => {
    expect((await get('/api/tax-rules/3?lang=fr_FR')).body[0]).toMatchObject({ TITLE: 'Écotaxe puis TVA', COUNTRIES: [5, 64], TAXES: [2, 1], IS_DEFAULT: 0, CREATE_DATE: '2018-02-03T04:05:06.000Z' });
    // The seeded rule 1, untouched, gave way to the store's own rule 1, which is the default.
    expect((await get('/api/tax-rules/1?lang=en_US')).body[0]).toMatchObject({ TITLE: 'EU 20% VAT', DESCRIPTION: 'France and Belgium', COUNTRIES: [20, 64], TAXES: [1], IS_DEFAULT: 1 });
    expect((await get('/api/tax-rules/4')).status).toBe(404);
  });

  it("records each record it imported as a change made by `import`, all under the run's one request id", async () => {
    const byImport = (await followChanges(undefined)).changes.filter((change) => change.API_KEY === 'import');
    const created = (resource: string) => byImport.filter((change) => change.RESOURCE === resource && change.TYPE === 'created').length;
    // One of the two rules takes the place of a seeded rule of the same id: its next version.
    const rules = byImport.filter((change) => change.RESOURCE === 'tax-rule').sort((a, b) => Number(a.ENTITY_ID) - Number(b.ENTITY_ID));
    expect(rules.map((change) => [change.ENTITY_ID, change.TYPE, change.VERSION])).toEqual([
      [1, 'updated', 2],
      [3, 'created', 1],
    ]);
    expect(created('tax-rule') + 1).toBe(FIRST_RUN['tax rule'].imported);
    expect(created('product')).toBe(FIRST_RUN.product.imported);
    expect(created('customer')).toBe(FIRST_RUN.customer.imported);
    expect(new Set(byImport.map((change) => change.REQUEST_ID)).size).toBe(1);
    expect(JSON.stringify(byImport)).not.toMatch(/\$2[aby]\$/);
  });

  it('changes nothing when run again (exit 2 still lists what it skips)', async () => {
    const since = await cursorNow();
    const before = await tableSnapshot();
    const second = await runImport(['--from', storeUrl]);
    expect(second.status, second.stderr).toBe(2);
    expect(second.report!.counts).toEqual({
      'tax rule': { ...FIRST_RUN['tax rule'], imported: 0, unchanged: 3 },
      category: { ...FIRST_RUN.category, imported: 0, unchanged: 3 },
      brand: { ...FIRST_RUN.brand, imported: 0, unchanged: 2 },
      product: { ...FIRST_RUN.product, imported: 0, unchanged: 4 },
      attribute: { ...FIRST_RUN.attribute, imported: 0, unchanged: 2 },
      'attribute value': { ...FIRST_RUN['attribute value'], imported: 0, unchanged: 3 },
      'sale element': { ...FIRST_RUN['sale element'], imported: 0, unchanged: 6 },
      customer: { ...FIRST_RUN.customer, imported: 0, unchanged: 3 },
    });
    expect(second.report!.skipped).toEqual(first.report!.skipped);
    // The table still holds the source's values as the first run changed them: each is named again.
    expect(second.report!.normalized).toEqual(NORMALIZED);
    expect(await tableSnapshot()).toEqual(before);
    expect((await followChanges(since)).changes).toEqual([]);
  }, 180_000);

  it('leaves totals, next ids and rule usage as if the records had been created through the API', async () => {
    expect((await get('/api/products')).headers['x-total-count']).toBe('5');
    expect((await get('/api/customers')).headers['x-total-count']).toBe('3');
    expect((await get('/api/tax-rules')).body.map((row: { ID: number }) => row.ID)).toEqual([1, 2, 3]);

    // Ids come after the store's highest ones.
    expect((await post('/api/products', productInput({ tax_rule: 0 }))).body[0]).toMatchObject({ ID: 41, TAX_RULE_ID: 1 });
    expect((await post('/api/customers', customerInput())).body[0]).toMatchObject({ ID: 51 });
    expect((await post('/api/tax-rules', { country: [64], tax: [1], i18n: [{ locale: 'en_US', title: 'New' }] })).body[0]).toMatchObject({ ID: 12 });

    // Rule 3 is used by exactly products 10 and 40.
    expect((await del('/api/tax-rules/3')).status).toBe(409);
    expect((await del('/api/products/10')).status).toBe(204);
    expect((await del('/api/tax-rules/3')).status).toBe(409);
    expect((await del('/api/products/40')).status).toBe(204);
    expect((await del('/api/tax-rules/3')).status).toBe(204);
  });

  it('lets customers log in with their Thelia passwords; a later run finds them unchanged after the hash upgrade, and keeps an edit', async () => {
    expect((await post('/api/customers/checkLogin', { email: 'ann.smith@example.com', password: PASSWORDS.ann })).status).toBe(200);
    expect((await post('/api/customers/checkLogin', { email: 'ann.smith@example.com', password: 'not her password' })).status).toBe(404);
    expect((await post('/api/customers/checkLogin', { email: 'short@example.com', password: PASSWORDS.short })).status).toBe(200);
    // Upgraded at the first check; the next check verifies the new hash.
    expect((await post('/api/customers/checkLogin', { email: 'Ann.Smith@example.com', password: PASSWORDS.ann })).status).toBe(200);

    // An edit through the API since the import is kept as it is.
    expect((await put('/api/customers', { id: 10, lastname: 'Renamed' })).status).toBe(201);

    const again = await runImport(['--from', storeUrl]);
    expect(again.status, again.stderr).toBe(2);
    expect(again.report!.counts.customer).toEqual({ ...FIRST_RUN.customer, imported: 0, unchanged: 2, kept: 1 });
    // A customer changed through the API holds the API's values, not the import's: none of its normalizations is named.
    expect(again.report!.normalized.filter((value) => value.kind === 'customer').map((value) => value.id)).toEqual([1, 1, 50, 50]);
    // What was deleted through the API since the first run stays deleted: its history is kept, and
    // the record is not made again under its id.
    expect(problemOf(again, 'product', 10)).toMatch(/^tax rule 3 was skipped \(tax_rule.id: tax-rule 3 was deleted since it was made/);
    expect(problemOf(again, 'tax rule', 3)).toMatch(/^tax-rule 3 was deleted since it was made/);
    expect((await get('/api/products/10')).status).toBe(404);
    expect((await get('/api/customers/10')).body[0]).toMatchObject({ LASTNAME: 'Renamed', VERSION: 2 });
    // The run moved no id counter back.
    expect((await post('/api/customers', customerInput())).body[0]).toMatchObject({ ID: 52 });
  }, 180_000);

  it('skips every product, naming the column, when the shop’s default currency is not one the API knows', async () => {
    const url = await createTheliaStore(mariadb, 'shop_xts', { defaultCurrency: 99 });
    const dry = await runImport(['--from', url, '--dry-run']);
    expect(dry.status).toBe(2);
    expect(dry.report!.counts.product.imported).toBe(0);
    expect(problemOf(dry, 'product', 11)).toBe('99 is not a known currency id');
    expect(dry.report!.skipped.find((s) => s.kind === 'product' && s.id === 11)?.problems.map((p) => p.field)).toEqual(['currency.id']);
  }, 180_000);

  it("reads Thelia's dates as UTC, or in the zone --timezone names", async () => {
    const url = await mariadb.createDatabase('shop_paris', THELIA_TABLES);
    await insertRows(mariadb.admin, 'tax_rule', [{ id: 77, is_default: 0, created_at: '2018-07-01 12:00:00', updated_at: null }]);
    await insertRows(mariadb.admin, 'tax_rule_i18n', [{ id: 77, locale: 'fr_FR', title: 'Paris', description: null }]);
    await insertRows(mariadb.admin, 'tax_rule_country', [{ id: 1, tax_rule_id: 77, country_id: 64, state_id: null, tax_id: 1, position: 1 }]);
    const run = await runImport(['--from', url, '--timezone', '+02:00']);
    expect(run.report!.records['tax rule'].imported).toEqual([77]);
    expect((await get('/api/tax-rules/77')).body[0]).toMatchObject({ CREATE_DATE: '2018-07-01T10:00:00.000Z', UPDATE_DATE: '2018-07-01T10:00:00.000Z' });
    // Another store into the same table: the first store's records are not in this one, so they are
    // listed as missing (exit 2), and nothing is deleted without --delete-missing.
    expect(run.status, run.stderr).toBe(2);
    expect(run.report!.records.customer.missing).toEqual([1, 10, 50]);
    expect(run.report!.missing.filter((record) => record.kind === 'customer')).toEqual([
      { kind: 'customer', id: 1, reason: 'not in Thelia any more: --delete-missing deletes it' },
      { kind: 'customer', id: 10, reason: 'not in Thelia any more, and changed through the API since the import: left as it is' },
      { kind: 'customer', id: 50, reason: 'not in Thelia any more: --delete-missing deletes it' },
    ]);
    expect((await get('/api/customers/1')).status).toBe(200);
  }, 180_000);

  it('fails with exit 1, and without showing the password, when the source cannot be read', async () => {
    const wrongPassword = storeUrl.replace(encodeURIComponent(READER.password), 'wrong-secret');
    const failed = await runImport(['--from', wrongPassword]);
    expect(failed.status).toBe(1);
    expect(failed.stderr).toMatch(/import failed: Access denied/);
    expect(failed.stderr + failed.stdout).not.toContain('wrong-secret');
    expect((await runImport(['--from', storeUrl.replace('/shop', '/nowhere')])).status).toBe(1);
    expect((await runImport([])).status).toBe(1);
  }, 180_000);
});
