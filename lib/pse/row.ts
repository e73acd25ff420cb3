/**
 * A sale element's loop row (docs/api.md: Thelia's `product_sale_elements` loop), its prices in one
 * currency, taxed as a product's (the shop's country, in order, compounding).
 */
import { applyPercents, formatMicros, storedMicros, timesRate } from '../money.js';
import { present } from '../present.js';
import { percentsOf } from '../products/row.js';
import type { SaleElement } from '../products/sale-elements.js';
import { currencyRates, defaultCurrencyId } from '../reference/index.js';
import { bit, type Row } from '../row.js';
import type { TaxRule } from '../tax-rules/index.js';

/**
 * A sale element's price and promo price in `currency`: its own, when it keeps one that does not follow
 * the exchange rate; else its default currency's own times the currency's rate; else what it keeps.
 */
export function pricesIn(element: SaleElement, currency: number): { price: bigint; promoPrice: bigint } {
  const own = element.prices[currency];
  if (own && !own.fromDefault) return { price: storedMicros(own.price), promoPrice: storedMicros(own.promoPrice) };
  const base = element.prices[defaultCurrencyId];
  if (base && !base.fromDefault) {
    const rate = present(currencyRates.get(currency), `the rate of currency ${currency}`);
    return { price: timesRate(storedMicros(base.price), rate), promoPrice: timesRate(storedMicros(base.promoPrice), rate) };
  }
  return { price: storedMicros(own?.price ?? '0'), promoPrice: storedMicros(own?.promoPrice ?? '0') };
}

/** A sort of attribute values in their attributes' order as they are now (lib/attribute-avs/order.ts). */
export type ValueOrder = (values: readonly number[]) => number[];

/** The row of `element`, its prices in `currency` taxed by `rule`, its values in `order`. */
export function pseRow(element: SaleElement, rule: TaxRule | undefined, currency: number, order: ValueOrder): Row {
  const { price, promoPrice } = pricesIn(element, currency);
  const percents = percentsOf(rule);
  const [taxed, taxedPromo] = [applyPercents(price, percents), applyPercents(promoPrice, percents)];
  return {
    ID: element.id,
    PRODUCT_ID: element.productId,
    REF: element.ref,
    EAN_CODE: element.ean,
    QUANTITY: element.quantity,
    IS_PROMO: bit(element.promo),
    IS_NEW: bit(element.newness),
    IS_DEFAULT: bit(element.isDefault),
    WEIGHT: element.weight,
    CURRENCY: currency,
    PRICE: formatMicros(price),
    PRICE_TAX: formatMicros(taxed - price),
    TAXED_PRICE: formatMicros(taxed),
    PROMO_PRICE: formatMicros(promoPrice),
    PROMO_PRICE_TAX: formatMicros(taxedPromo - promoPrice),
    TAXED_PROMO_PRICE: formatMicros(taxedPromo),
    ATTRIBUTE_AVS: order(element.attributeAvs),
    VERSION: element.version,
    CREATE_DATE: element.createdAt,
    UPDATE_DATE: element.updatedAt,
  };
}
