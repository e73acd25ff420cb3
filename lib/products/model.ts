/**
 * Product items and their loop rows. One item holds every locale's texts, so a read or a list page
 * costs the products' Query plus one BatchGet of their tax rules. Prices and weights are stored as
 * exact decimal strings.
 */
import { flag, type LoopRow } from '../db/loop.js';
import { keys, padId } from '../db/keys.js';
import { translate, type I18n } from '../i18n.js';
import { applyPercents, formatMicros, parseMicros } from '../money.js';
import { defaultCountryId, taxes } from '../reference/index.js';
import type { TaxRuleItem } from '../tax-rules/index.js';
import { TEXT_FIELDS } from './schema.js';

export type ProductText = (typeof TEXT_FIELDS)[number];

export interface Product {
  id: number;
  ref: string;
  /** Exact decimal strings with six fraction digits. */
  price: string;
  weight: string;
  currency: number;
  taxRuleId: number;
  visible: boolean;
  brandId: number;
  defaultCategory: number;
  i18n: I18n<ProductText>;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export const LIST_PARTITION = 'PRODUCTS';
export const visiblePartition = (visible: boolean) => `PRODUCTS#VISIBLE#${visible ? 1 : 0}`;

/** Refs sort case-insensitively; the id after a separator below any printable character keeps equal refs apart. */
const refSortKey = (p: Product) => `${p.ref.toLowerCase()}\u0001${padId(p.id)}`;

export const toItem = (p: Product) => ({
  ...keys.product(p.id),
  gsi1pk: LIST_PARTITION,
  gsi1sk: padId(p.id),
  gsi2pk: LIST_PARTITION,
  gsi2sk: refSortKey(p),
  gsi3pk: visiblePartition(p.visible),
  gsi3sk: padId(p.id),
  gsi4pk: visiblePartition(p.visible),
  gsi4sk: refSortKey(p),
  ...p,
});

export const refLockItem = (p: Pick<Product, 'id' | 'ref'>) => ({ ...keys.productRef(p.ref), productId: p.id });

export function fromItem(item: Record<string, unknown>): Product {
  const { pk: _pk, sk: _sk, gsi1pk: _1, gsi1sk: _2, gsi2pk: _3, gsi2sk: _4, gsi3pk: _5, gsi3sk: _6, gsi4pk: _7, gsi4sk: _8, ...product } = item;
  return product as unknown as Product;
}

/** The price with the rule's taxes for the shop's country, in order and compounding. */
export function taxedPrice(price: string, rule: TaxRuleItem | undefined): string {
  const micros = parseMicros(price)!;
  if (!rule || !rule.countries.includes(defaultCountryId)) return formatMicros(micros);
  return formatMicros(applyPercents(micros, rule.taxes.map((id) => taxes.get(id)?.percent ?? '0')));
}

export function toRow(p: Product, locale: string, rule: TaxRuleItem | undefined): LoopRow {
  const { translated, texts } = translate(p.i18n, locale, TEXT_FIELDS);
  return {
    ID: p.id,
    REF: p.ref,
    LOCALE: locale,
    IS_TRANSLATED: flag(translated),
    TITLE: texts.title,
    CHAPO: texts.chapo,
    DESCRIPTION: texts.description,
    POSTSCRIPTUM: texts.postscriptum,
    PRICE: p.price,
    CURRENCY: p.currency,
    TAXED_PRICE: taxedPrice(p.price, rule),
    WEIGHT: p.weight,
    VISIBLE: flag(p.visible),
    DEFAULT_CATEGORY: p.defaultCategory,
    TAX_RULE_ID: p.taxRuleId,
    BRAND_ID: p.brandId,
    VERSION: p.version,
    CREATE_DATE: p.createdAt,
    UPDATE_DATE: p.updatedAt,
  };
}
