/** A product's loop row (docs/conventions.md), with its price taxed for the shop's country. */
import { catalogTextsRow } from '../catalog-texts.js';
import { applyPercents, formatMicros, storedMicros } from '../money.js';
import { defaultCountryId, taxes } from '../reference/index.js';
import { bit, type Row } from '../row.js';
import type { TaxRule } from '../tax-rules/index.js';
import type { Product } from './entity.js';

/** The percents a rule applies in the shop's country, in order: none when it has no tax there (a sale element's prices are taxed so too). */
export const percentsOf = (rule: TaxRule | undefined): string[] => (rule?.countries.includes(defaultCountryId) ? rule.taxes.map((id) => taxes.get(id)?.percent ?? '0') : []);

/** The price with the rule's taxes for the shop's country, in order and compounding. */
export const taxedPrice = (price: string, rule: TaxRule | undefined): string => formatMicros(applyPercents(storedMicros(price), percentsOf(rule)));

export function productRow(p: Product, locale: string, rule: TaxRule | undefined): Row {
  return {
    ID: p.id,
    REF: p.ref,
    ...catalogTextsRow(p.i18n, locale),
    PRICE: p.price,
    CURRENCY: p.currency,
    TAXED_PRICE: taxedPrice(p.price, rule),
    WEIGHT: p.weight,
    VISIBLE: bit(p.visible),
    DEFAULT_CATEGORY: p.defaultCategory,
    TAX_RULE_ID: p.taxRuleId,
    BRAND_ID: p.brandId,
    VERSION: p.version,
    CREATE_DATE: p.createdAt,
    UPDATE_DATE: p.updatedAt,
  };
}
