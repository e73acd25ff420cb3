/** The Thelia import's mapping (rows → records or problems) and its progress display, on their own. */
import { describe, expect, it } from 'vitest';
import { mapCustomer, type TheliaCustomer } from '../../lib/customers/import.js';
import { whatChanged } from '../../lib/import/mapping.js';
import { mapProduct, type ProductContext, type TheliaProduct } from '../../lib/products/import.js';
import { mapTaxRule, type TheliaTaxRule } from '../../lib/tax-rules/import.js';
import { Progress } from '../../lib/import/progress.js';

const created = new Date('2020-01-02T03:04:05Z');
const BCRYPT = `$2y$10$${'a'.repeat(53)}`;

const rule = (overrides: Partial<TheliaTaxRule> = {}): TheliaTaxRule => ({
  id: 3,
  isDefault: 0,
  createdAt: created,
  updatedAt: null,
  i18n: [{ locale: 'en_US', title: 'VAT', description: null }],
  countryTaxes: [{ countryId: 64, stateId: null, taxId: 1, position: 1 }],
  ...overrides,
});

const product = (overrides: Partial<TheliaProduct> = {}): TheliaProduct => ({
  id: 7,
  ref: 'REF-7',
  visible: 1,
  brandId: null,
  taxRuleId: 1,
  createdAt: created,
  updatedAt: null,
  i18n: [{ locale: 'en_US', title: 'Seven', chapo: null, description: null, postscriptum: null }],
  defaultSaleElements: [{ id: 70, weight: 0.25, price: '9.990000' }],
  defaultCategories: [],
  ...overrides,
});

const context: ProductContext = { currency: { id: 1 }, taxRuleProblem: () => undefined };

const customer = (overrides: Partial<TheliaCustomer> = {}): TheliaCustomer => ({
  id: 5,
  ref: 'CUS5',
  titleId: 1,
  langId: null,
  firstname: 'Ann',
  lastname: 'Smith',
  email: 'ann@example.com',
  password: BCRYPT,
  algo: 'PASSWORD_BCRYPT',
  createdAt: created,
  updatedAt: null,
  defaultAddresses: [{ id: 1, countryId: 64, zipcode: '75001', city: 'Paris', address1: '1 rue', address2: '', address3: '' }],
  ...overrides,
});

const fields = (mapped: { problems?: { field: string }[] | undefined }) => mapped.problems?.map((p) => p.field);

describe('mapTaxRule', () => {
  it('keeps texts, ordered taxes and dates; a rule never updated was last updated when created', () => {
    const taxes = [
      { countryId: 64, stateId: null, taxId: 1, position: 2 },
      { countryId: 64, stateId: null, taxId: 2, position: 1 },
    ];
    expect(mapTaxRule(rule({ countryTaxes: taxes })).record).toMatchObject({ countries: [64], taxes: [2, 1], i18n: { en_US: { title: 'VAT' } }, updatedAt: created.toISOString() });
  });

  it('skips a locale with texts but no title, and a rule without a creation date', () => {
    expect(fields(mapTaxRule(rule({ i18n: [...rule().i18n, { locale: 'de_DE', title: null, description: 'Nur Text' }] })))).toEqual(['tax_rule_i18n[de_DE].title']);
    expect(fields(mapTaxRule(rule({ createdAt: null })))).toEqual(['tax_rule.created_at']);
  });
});

describe('mapProduct', () => {
  it('maps the default sale element, visibility and brand, with exact decimals', () => {
    expect(mapProduct(product(), context).record).toMatchObject({ price: '9.990000', weight: '0.250000', visible: true, brandId: 0, defaultCategory: 0, currency: 1 });
  });

  it('names what it cannot choose between, and a flag that is neither 0 nor 1', () => {
    const twoSaleElements = product({ defaultSaleElements: [product().defaultSaleElements[0]!, { id: 71, weight: 0, price: '1' }] });
    expect(mapProduct(twoSaleElements, context).problems?.[0]).toEqual({ field: 'product_sale_elements.is_default', message: 'the product has 2 default sale elements (70, 71)' });
    expect(fields(mapProduct(product({ defaultCategories: [3, 4] }), context))).toEqual(['product_category.default_category']);
    expect(fields(mapProduct(product({ visible: 2 }), context))).toEqual(['product.visible']);
    expect(fields(mapProduct(product(), { ...context, currency: { problem: 'the source has no default currency' } }))).toEqual(['currency.by_default']);
  });
});

describe('mapCustomer', () => {
  it('keeps the bcrypt hash and gives a NULL language the default one', () => {
    expect(mapCustomer(customer()).record).toMatchObject({ passwordHash: BCRYPT, langId: 2, zipcode: '75001', address2: '' });
  });

  it("keeps Thelia's reference, unless it is the one the id makes", () => {
    expect(mapCustomer(customer()).record?.ref).toBe('CUS5');
    expect(mapCustomer(customer({ ref: 'CUS000000000005' })).record?.ref).toBeUndefined();
    expect(mapCustomer(customer({ ref: null })).record?.ref).toBeUndefined();
    expect(mapCustomer(customer({ ref: 'CUS\u00005' })).problems?.map((problem) => problem.field)).toEqual(['customer.ref']);
  });

  it('skips a hash the API cannot verify, and a customer with two default addresses', () => {
    expect(mapCustomer(customer({ password: '5f4dcc3b5aa765d61d8327deb882cf99', algo: 'md5' })).problems).toEqual([
      { field: 'customer.password', message: 'is not a bcrypt hash (algo md5): the API verifies bcrypt and its own hashes only' },
    ]);
    const second = { ...customer().defaultAddresses[0]!, id: 2 };
    expect(fields(mapCustomer(customer({ defaultAddresses: [...customer().defaultAddresses, second] })))).toEqual(['address.is_default']);
  });
});

describe('values changed on the way in', () => {
  it('names what the text schemas did, in the order they do it', () => {
    expect(whatChanged(' Ann\u00a0', 'Ann')).toBe('trimmed');
    expect(whatChanged('Je\u0301ro\u0302me', 'Jérôme')).toBe('normalized to NFC');
    expect(whatChanged(' Zoe\u0308 ', 'Zoë')).toBe('trimmed, normalized to NFC');
    expect(whatChanged('Ann', 'Anne')).toBe('changed');
  });

  it("lists each with its Thelia row and column: a tax rule's texts per locale, blank ones included", () => {
    const mapped = mapTaxRule(rule({ i18n: [{ locale: 'en_US', title: 'VAT ', description: '   ' }] }));
    expect(mapped.normalized).toEqual([
      { table: 'tax_rule_i18n', row: 3, locale: 'en_US', column: 'description', what: 'trimmed to nothing: no text', before: '   ', after: null },
      { table: 'tax_rule_i18n', row: 3, locale: 'en_US', column: 'title', what: 'trimmed', before: 'VAT ', after: 'VAT' },
    ]);
  });

  it("lists a product's ref, texts and empty weight", () => {
    const mapped = mapProduct(product({ ref: ' REF-7', i18n: [{ ...product().i18n[0]!, chapo: 'Cafe\u0301' }], defaultSaleElements: [{ id: 70, weight: null, price: '1' }] }), context);
    expect(mapped.normalized!.map((n) => [n.table, n.row, n.locale, n.column, n.what])).toEqual([
      ['product_i18n', 7, 'en_US', 'chapo', 'normalized to NFC'],
      ['product', 7, undefined, 'ref', 'trimmed'],
      ['product_sale_elements', 70, undefined, 'weight', 'empty: 0'],
    ]);
  });

  it("lists a customer's names and email from its row, its address from the address's, and a NULL language", () => {
    const address = { ...customer().defaultAddresses[0]!, id: 9, city: 'Paris\u00a0' };
    const mapped = mapCustomer(customer({ email: ' ann@example.com', defaultAddresses: [address] }));
    expect(mapped.normalized!.map((n) => [n.table, n.row, n.column, n.what])).toEqual([
      ['customer', 5, 'email', 'trimmed'],
      ['address', 9, 'city', 'trimmed'],
      ['customer', 5, 'lang_id', "empty: the store's default language"],
    ]);
    expect(mapCustomer(customer({ langId: 2 })).normalized).toEqual([]);
  });
});

describe('Progress', () => {
  it('writes a plain line every tenth of the way when the output is not a terminal', () => {
    const lines: string[] = [];
    const progress = new Progress({ write: (text: string) => lines.push(text) });
    progress.start('customers', 100);
    for (let i = 0; i < 100; i++) progress.advance(1);
    progress.finish();
    expect(lines).toHaveLength(10);
    expect(lines.at(-1)).toMatch(/^customers\s+100\/100 \(100%\)/);
  });

  it('redraws one line in place on a terminal', () => {
    const writes: string[] = [];
    const progress = new Progress({ write: (text: string) => writes.push(text), isTTY: true });
    progress.start('products', 4);
    progress.advance(4);
    progress.finish();
    expect(writes.slice(0, -1).every((text) => text.startsWith('\r'))).toBe(true);
    expect(writes.at(-2)).toContain('4/4 (100%)');
    expect(writes.at(-1)).toBe('\n');
  });
});
