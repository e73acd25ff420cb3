/**
 * A small Thelia 2.4 store for the import's tests: rows that cover each rule of the mapping and each
 * reason to skip a record (docs/moving-from-thelia.md), with what the import must make of them. Ids are Thelia's;
 * the comment on each row says what it is for.
 */
import bcrypt from 'bcryptjs';
import seedRules from '../../lib/reference/data/tax-rules.json' with { type: 'json' };
import { THELIA_TABLES, insertRows, type TheliaRow } from './thelia-tables.js';
import type { MariaDb } from './mariadb.js';

/** PHP's password_hash() writes $2y$; bcryptjs writes the same algorithm as $2b$. */
export const phpBcrypt = (password: string) => bcrypt.hashSync(password, 4).replace(/^\$2b\$/, '$2y$');

export const PASSWORDS = { ann: 'thelia-secret-1', short: 'abc', last: 'last-customer-pw' } as const;

const FRANCE = 64;
const BELGIUM = 20;
const GERMANY = 5;

const taxRules: TheliaRow[] = [
  { id: 1, is_default: 1, created_at: '2014-01-01 00:00:00', updated_at: '2020-05-05 12:00:00' }, // the shop's edit of the seeded default rule
  { id: 2, is_default: 0, created_at: '2014-01-01 00:00:00', updated_at: null }, // the seeded rule 2, as installed
  { id: 3, is_default: 0, created_at: '2018-02-03 04:05:06', updated_at: '2019-02-03 04:05:06' }, // two taxes, in position order
  { id: 4, is_default: 0, created_at: '2018-01-01 00:00:00', updated_at: null }, // countries apply different taxes
  { id: 5, is_default: 0, created_at: '2018-01-01 00:00:00', updated_at: null }, // an unknown tax
  { id: 6, is_default: 0, created_at: '2018-01-01 00:00:00', updated_at: null }, // an unknown country
  { id: 7, is_default: 0, created_at: '2018-01-01 00:00:00', updated_at: null }, // narrowed to a state
  { id: 8, is_default: 1, created_at: '2018-01-01 00:00:00', updated_at: null }, // a second default
  { id: 9, is_default: 0, created_at: '2018-01-01 00:00:00', updated_at: null }, // no country at all
  { id: 10, is_default: 0, created_at: '2018-01-01 00:00:00', updated_at: null }, // a text in an unknown locale
  { id: 11, is_default: 0, created_at: '2018-01-01 00:00:00', updated_at: null }, // two taxes at one position
];

const ruleTitle = (id: number, locale = 'en_US', title: string | null = `Rule ${id}`, description: string | null = null): TheliaRow => ({ id, locale, title, description });

const taxRuleI18n: TheliaRow[] = [
  ruleTitle(1, 'en_US', 'EU 20% VAT', 'France and Belgium'),
  ruleTitle(1, 'fr_FR', 'TVA 20 % UE'),
  // As Thelia installs it, untranslated locales (NULL texts) included.
  ...Object.entries(seedRules[1]!.i18n).map(([locale, texts]) => ruleTitle(2, locale, texts.title, texts.description)),
  ruleTitle(3, 'en_US', 'Eco tax then VAT', 'Line one\nline two'),
  ruleTitle(3, 'fr_FR', 'Écotaxe puis TVA'),
  { id: 3, locale: 'cs_CZ', title: null, description: null }, // an empty translation: no locale
  ...[4, 5, 6, 7, 8, 9].map((id) => ruleTitle(id)),
  ruleTitle(10, 'xx_XX', 'Unknown locale'),
  ruleTitle(11),
];

let countryTaxId = 0;
const countryTax = (rule: number, country: number, tax: number, position: number, state: number | null = null): TheliaRow => ({
  id: ++countryTaxId,
  tax_rule_id: rule,
  country_id: country,
  state_id: state,
  tax_id: tax,
  position,
});

const taxRuleCountries: TheliaRow[] = [
  countryTax(1, FRANCE, 1, 1),
  countryTax(1, BELGIUM, 1, 1),
  countryTax(2, FRANCE, 2, 1),
  countryTax(3, GERMANY, 1, 2),
  countryTax(3, GERMANY, 2, 1),
  countryTax(3, FRANCE, 2, 1),
  countryTax(3, FRANCE, 1, 2),
  countryTax(4, FRANCE, 1, 1),
  countryTax(4, BELGIUM, 2, 1),
  countryTax(5, FRANCE, 7, 1),
  countryTax(6, 9999, 1, 1),
  countryTax(7, FRANCE, 1, 1),
  countryTax(7, 196, 1, 1, 12),
  countryTax(8, FRANCE, 1, 1),
  countryTax(10, FRANCE, 1, 1),
  countryTax(11, FRANCE, 1, 1),
  countryTax(11, FRANCE, 2, 1),
];

const product = (id: number, ref: string, taxRule: number | null, extra: Partial<TheliaRow> = {}): TheliaRow => ({
  id,
  ref,
  tax_rule_id: taxRule,
  visible: 0,
  brand_id: null,
  created_at: '2019-01-01 10:00:00',
  updated_at: null,
  ...extra,
});

export const API_PRODUCT_REF = 'API-ONE';

const products: TheliaRow[] = [
  product(1, 'THELIA-ONE', 1), // its id is taken by a product created through the API before the import
  product(10, 'CHAIR-10', 3, { visible: 1, brand_id: 3, created_at: '2019-03-04 05:06:07', updated_at: '2021-07-08 09:10:11' }), // every field
  product(11, 'STOOL-11', 1), // defaults: no brand, no category, no weight, never updated
  product(12, 'BOOK-12', 2, { visible: 1 }), // on the seeded rule 2
  product(20, 'SPLIT-20', 4), // on a rule whose countries apply different taxes
  product(21, 'NORULE-21', null), // on no rule
  product(22, API_PRODUCT_REF.toLowerCase(), 1), // its ref is the API product's, case aside
  product(23, 'NOPSE-23', 1), // no default sale element
  product(24, 'USD-24', 1), // no price in the default currency
  product(25, 'NEG-25', 1), // a negative price
  product(26, 'LOCALE-26', 1), // a text in an unknown locale
  product(27, 'LONG-27', 1), // a description longer than the API's
  product(28, 'NOTEXT-28', 1), // no title in any locale
  product(29, 'GHOST-29', 99), // a rule the source does not have
  product(30, 'HUGE-30', 1), // texts in every locale, larger together than a DynamoDB item
  product(40, 'LAMP-40', 3, { visible: 1 }), // the highest id
];

const texts = (id: number, locale: string, title: string | null, more: Partial<TheliaRow> = {}): TheliaRow => ({
  id,
  locale,
  title,
  chapo: null,
  description: null,
  postscriptum: null,
  meta_title: null,
  ...more,
});

export const LONG_DESCRIPTION = 'x'.repeat(10_001);

const productI18n: TheliaRow[] = [
  texts(1, 'en_US', 'Thelia one'),
  texts(10, 'en_US', 'Chair', { chapo: 'A chair', description: 'Oak.\nHand made.', postscriptum: 'Ships in a week', meta_title: 'not part of the API' }),
  texts(10, 'fr_FR', 'Chaise', { description: 'Chêne.' }),
  texts(10, 'cs_CZ', null), // an empty translation: no locale
  texts(11, 'en_US', '  Stool  '),
  texts(12, 'fr_FR', 'Livre'),
  ...[20, 21, 22, 23, 24, 25].map((id) => texts(id, 'en_US', `Product ${id}`)),
  texts(26, 'xx_XX', 'Unknown locale'),
  texts(27, 'en_US', 'Long', { description: LONG_DESCRIPTION }),
  texts(28, 'en_US', null, { chapo: '' }),
  texts(29, 'en_US', 'Ghost'),
  texts(40, 'en_US', 'Lamp'),
  ...['fr_FR', 'en_US', 'es_ES', 'it_IT', 'ru_RU', 'cs_CZ', 'de_DE'].map((locale) => {
    const long = 'ж'.repeat(10_000);
    return texts(30, locale, 'Большой', { chapo: long, description: long, postscriptum: long });
  }),
];

const saleElement = (id: number, productId: number, isDefault: number, weight: number | null = 0, extra: Partial<TheliaRow> = {}): TheliaRow => ({
  id,
  product_id: productId,
  ref: `PSE-${id}`,
  quantity: 10,
  weight,
  is_default: isDefault,
  promo: 0,
  newness: 0,
  ean_code: null,
  created_at: '2019-03-04 05:06:07',
  updated_at: null,
  ...extra,
});

/** Product 10 (imported) comes with its variants: sizes, a promo, a stock of 0, and rows the API cannot hold. */
const saleElements: TheliaRow[] = [
  ...[1, 11, 12, 20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 40].map((productId) => saleElement(productId * 10, productId, 1, productId === 11 ? null : 0)),
  saleElement(100, 10, 1, 2.5, { ean_code: '4006381333931', quantity: 7, updated_at: '2021-07-08 09:10:11' }),
  saleElement(101, 10, 0, 9, { ean_code: 'no-ean', promo: 1, quantity: 2.5 }),
  saleElement(102, 10, 0, 0, { newness: 1, quantity: 0, ean_code: '' }),
  saleElement(103, 10, 0), // made of a value the import skips
  saleElement(104, 10, 0, 0, { quantity: -2 }), // oversold in Thelia
  saleElement(105, 10, 0, 0, { ref: 'pse-101' }), // 101's reference, compared case-insensitively
  saleElement(106, 10, 0), // no price at all
  saleElement(230, 23, 0), // product 23 has sale elements, none of them the default
];

const price = (pse: number, currency: number, amount: string, extra: Partial<TheliaRow> = {}): TheliaRow => ({
  product_sale_elements_id: pse,
  currency_id: currency,
  price: amount,
  promo_price: '0',
  from_default_currency: 0,
  ...extra,
});

const prices: TheliaRow[] = [
  ...[1, 11, 12, 20, 21, 22, 26, 27, 28, 29, 30].map((productId) => price(productId * 10, 1, '10')),
  price(100, 1, '120.500000', { promo_price: '99.900000' }),
  price(100, 2, '150.000000'), // another currency: not the product's price, the sale element's
  price(101, 1, '99', { promo_price: '89.5' }), // not the default sale element
  price(101, 2, '0', { from_default_currency: 1 }), // dollars: euros times the rate
  price(102, 1, '95'),
  price(103, 1, '95'),
  price(104, 1, '95'),
  price(105, 1, '95'),
  price(240, 2, '12'),
  price(250, 1, '-1.000000'),
  price(400, 1, '35.25'),
];

/** What the variants are made of (attribute 1: size, position 1; attribute 4, position 2). */
const attributeCombinations: TheliaRow[] = [
  { attribute_id: 1, attribute_av_id: 1, product_sale_elements_id: 101 },
  { attribute_id: 4, attribute_av_id: 6, product_sale_elements_id: 102 },
  { attribute_id: 1, attribute_av_id: 2, product_sale_elements_id: 102 },
  { attribute_id: 99, attribute_av_id: 7, product_sale_elements_id: 103 },
];

/**
 * A tree whose child (7) has a lower id than its parent (8), so that the import must bring parents
 * first; 9's parent is not in the store, so it and its child 10 are skipped.
 */
export const theliaCategories: TheliaRow[] = [
  { id: 3, parent: 0, visible: 1, position: 1, created_at: '2019-05-01 10:00:00', updated_at: '2019-05-01 10:00:00' },
  { id: 8, parent: 0, visible: 1, position: 2, created_at: '2019-05-01 10:00:00', updated_at: null },
  { id: 7, parent: 8, visible: 0, position: 1, created_at: '2019-05-02 10:00:00', updated_at: '2019-05-03 10:00:00' },
  { id: 9, parent: 44, visible: 1, position: 1, created_at: '2019-05-02 10:00:00', updated_at: null },
  { id: 10, parent: 9, visible: 1, position: 1, created_at: '2019-05-02 10:00:00', updated_at: null },
];

const categoryTexts = (id: number, locale: string, title: string | null, extra: Partial<TheliaRow> = {}): TheliaRow => ({
  id,
  locale,
  title,
  chapo: null,
  description: null,
  postscriptum: null,
  ...extra,
});

export const theliaCategoryI18n: TheliaRow[] = [
  categoryTexts(3, 'en_US', 'Lamps', { chapo: 'Light' }),
  categoryTexts(3, 'fr_FR', ' Lampes '),
  categoryTexts(8, 'en_US', 'Furniture'),
  categoryTexts(7, 'en_US', 'Chairs', { description: 'Seats' }),
  categoryTexts(9, 'en_US', 'Orphans'),
  categoryTexts(10, 'en_US', 'Orphans child'),
];

const productCategories: TheliaRow[] = [
  { product_id: 10, category_id: 8, default_category: 0, position: 1 },
  { product_id: 10, category_id: 7, default_category: 1, position: 2 },
  { product_id: 12, category_id: 3, default_category: 1, position: 1 },
];

/** Brand 3 (product 10's) with texts in two locales; brand 5 with none at all, which comes with empty texts. */
export const theliaBrands: TheliaRow[] = [
  { id: 3, visible: 1, position: 1, logo_image_id: null, created_at: '2018-01-01 08:00:00', updated_at: '2018-02-02 08:00:00' },
  { id: 5, visible: null, position: 2, logo_image_id: null, created_at: '2018-01-02 08:00:00', updated_at: null },
];

export const theliaBrandI18n: TheliaRow[] = [
  { id: 3, locale: 'en_US', title: 'Acme', chapo: 'Since 1900', description: null, postscriptum: null, meta_title: 'Acme furniture', meta_description: null, meta_keywords: 'chairs' },
  { id: 3, locale: 'fr_FR', title: ' Acmé ', chapo: null, description: null, postscriptum: null, meta_title: null, meta_description: null, meta_keywords: null },
];

/** Attribute 1 with two values (positions out of id order); attribute 4 and its value 6 with no texts; value 7 of an attribute the store lacks. */
export const theliaAttributes: TheliaRow[] = [
  { id: 1, position: 1, created_at: '2018-03-01 08:00:00', updated_at: null },
  { id: 4, position: 2, created_at: '2018-03-01 08:00:00', updated_at: null },
];
export const theliaAttributeI18n: TheliaRow[] = [
  { id: 1, locale: 'en_US', title: 'Size', chapo: null, description: null, postscriptum: null },
  { id: 1, locale: 'fr_FR', title: 'Taille', chapo: null, description: null, postscriptum: null },
];
export const theliaAttributeAvs: TheliaRow[] = [
  { id: 1, attribute_id: 1, position: 2, created_at: '2018-03-02 08:00:00', updated_at: null },
  { id: 2, attribute_id: 1, position: 1, created_at: '2018-03-02 08:00:00', updated_at: null },
  { id: 6, attribute_id: 4, position: 1, created_at: '2018-03-02 08:00:00', updated_at: null },
  { id: 7, attribute_id: 99, position: 1, created_at: '2018-03-02 08:00:00', updated_at: null },
];
export const theliaAttributeAvI18n: TheliaRow[] = [
  { id: 1, locale: 'en_US', title: 'M', chapo: null, description: 'Medium', postscriptum: null },
  { id: 2, locale: 'en_US', title: 'S', chapo: null, description: null, postscriptum: null },
  { id: 7, locale: 'en_US', title: 'Orphan', chapo: null, description: null, postscriptum: null },
];

/** A customer row, as Thelia 2.4 stores it. */
export const theliaCustomer = (id: number, email: string | null, extra: Partial<TheliaRow> = {}): TheliaRow => ({
  id,
  title_id: 1,
  lang_id: 2,
  ref: `CUS${id}`,
  firstname: 'Jean',
  lastname: `Customer ${id}`,
  email,
  password: null,
  algo: 'PASSWORD_BCRYPT',
  created_at: '2016-01-01 00:00:00',
  updated_at: null,
  ...extra,
});

/** An address row of a customer. */
export const theliaAddress = (id: number, customerId: number, isDefault: number, extra: Partial<TheliaRow> = {}): TheliaRow => ({
  id,
  label: `Address ${id}`,
  customer_id: customerId,
  title_id: 1,
  company: 'not part of the API',
  firstname: 'Jean',
  lastname: 'Address',
  address1: `${id} rue de la Paix`,
  address2: '',
  address3: '',
  zipcode: '75002',
  city: 'Paris',
  country_id: FRANCE,
  phone: '0102030405',
  is_default: isDefault,
  ...extra,
});

export function theliaCustomers(): TheliaRow[] {
  const hash = phpBcrypt(PASSWORDS.ann);
  return [
    theliaCustomer(1, 'Ann.Smith@Example.com', {
      title_id: 2,
      lang_id: null,
      firstname: 'Ann',
      lastname: 'Smith',
      password: hash,
      created_at: '2015-06-01 10:20:30',
      updated_at: '2022-02-02 02:02:02',
    }), // every field
    theliaCustomer(2, 'ann.smith@example.com', { password: hash }), // the same email as customer 1, case aside
    theliaCustomer(3, 'title@example.com', { password: hash, title_id: 9 }), // an unknown title
    theliaCustomer(4, 'lang@example.com', { password: hash, lang_id: 9 }), // an unknown language
    theliaCustomer(5, 'country@example.com', { password: hash }), // an address in an unknown country
    theliaCustomer(6, 'zip@example.com', { password: hash }), // a zip code France does not have
    theliaCustomer(7, 'noaddress@example.com', { password: hash }), // no default address
    theliaCustomer(8, 'nopassword@example.com'), // no password
    theliaCustomer(9, 'not-an-email', { password: hash }), // an email the API refuses
    theliaCustomer(10, 'short@example.com', { password: phpBcrypt(PASSWORDS.short), lang_id: 1 }), // a password shorter than the API's minimum
    theliaCustomer(12, 'control@example.com', { password: hash, firstname: 'Bad\u0007Bell' }), // a name the API refuses
    // The highest id; an email ending in a no-break space and a name in NFD, as a form may have saved them.
    theliaCustomer(50, 'last@example.com\u00a0', { password: phpBcrypt(PASSWORDS.last), firstname: 'Je\u0301ro\u0302me' }),
  ];
}

const addresses: TheliaRow[] = [
  theliaAddress(1, 1, 0, { city: 'Lyon', zipcode: '69001' }),
  theliaAddress(2, 1, 1, { address2: 'Bâtiment B', address3: '3e étage', city: ' Paris ' }), // a city with spaces around it
  theliaAddress(3, 2, 1),
  theliaAddress(4, 3, 1),
  theliaAddress(5, 4, 1),
  theliaAddress(6, 5, 1, { country_id: 9999 }),
  theliaAddress(7, 6, 1, { zipcode: '1234' }),
  theliaAddress(8, 7, 0),
  theliaAddress(9, 8, 1),
  theliaAddress(10, 9, 1),
  theliaAddress(11, 10, 1, { country_id: BELGIUM, zipcode: '1000', city: 'Bruxelles' }),
  theliaAddress(12, 12, 1),
  theliaAddress(13, 50, 1),
];

/** Creates the store's database on `mariadb`; its mysql:// URL for the import (a user that may only SELECT). */
export async function createTheliaStore(mariadb: MariaDb, name: string, options: { defaultCurrency?: number } = {}): Promise<string> {
  const url = await mariadb.createDatabase(name, THELIA_TABLES);
  const db = mariadb.admin;
  // The store speaks French first: a customer without a language gets it.
  await insertRows(db, 'lang', [
    { id: 1, title: 'Français', code: 'fr', locale: 'fr_FR', by_default: 1, position: 1 },
    { id: 2, title: 'English', code: 'en', locale: 'en_US', by_default: 0, position: 2 },
  ]);
  await insertRows(db, 'currency', [
    { id: 1, code: 'EUR', symbol: '€', rate: 1, by_default: options.defaultCurrency === undefined || options.defaultCurrency === 1 ? 1 : 0 },
    { id: 2, code: 'USD', symbol: '$', rate: 1.26, by_default: 0 },
    ...(options.defaultCurrency === 99 ? [{ id: 99, code: 'XTS', symbol: 'XTS', rate: 1, by_default: 1 }] : []),
  ]);
  await insertRows(db, 'tax_rule', taxRules);
  await insertRows(db, 'tax_rule_i18n', taxRuleI18n);
  await insertRows(db, 'tax_rule_country', taxRuleCountries);
  await insertRows(db, 'product', products);
  await insertRows(db, 'product_i18n', productI18n);
  await insertRows(db, 'product_sale_elements', saleElements);
  await insertRows(db, 'product_price', prices);
  await insertRows(db, 'category', theliaCategories);
  await insertRows(db, 'category_i18n', theliaCategoryI18n);
  await insertRows(db, 'product_category', productCategories);
  await insertRows(db, 'brand', theliaBrands);
  await insertRows(db, 'brand_i18n', theliaBrandI18n);
  await insertRows(db, 'attribute', theliaAttributes);
  await insertRows(db, 'attribute_i18n', theliaAttributeI18n);
  await insertRows(db, 'attribute_av', theliaAttributeAvs);
  await insertRows(db, 'attribute_av_i18n', theliaAttributeAvI18n);
  await insertRows(db, 'attribute_combination', attributeCombinations);
  await insertRows(db, 'customer', theliaCustomers());
  await insertRows(db, 'address', addresses);
  return url;
}
