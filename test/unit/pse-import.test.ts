/** The sale elements' import kind on its own: a Thelia row's mapping, and what one transaction of its records holds. */
import { describe, expect, it } from 'vitest';
import type { ImportContext } from '../../lib/import/kind.js';
import { importKind, mapSaleElement, type TheliaSaleElement } from '../../lib/pse/import.js';
import type { SaleElement } from '../../lib/products/sale-elements.js';
import { fixedStamp } from '../support/stamp.js';

const everyRecordKept: ImportContext = { problemOf: () => undefined };
const created = new Date('2020-01-02T03:04:05Z');

const element = (row: Record<string, unknown> = {}, more: Partial<TheliaSaleElement> = {}): TheliaSaleElement => ({
  id: 70,
  row: {
    id: 70,
    product_id: 7,
    ref: 'REF-7-L',
    quantity: 3,
    promo: 0,
    newness: 1,
    weight: 0.25,
    is_default: 0,
    ean_code: null,
    created_at: created,
    updated_at: null,
    ...row,
  } as TheliaSaleElement['row'],
  prices: [{ product_sale_elements_id: 70, currency_id: 1, price: '12.500000', promo_price: '10.000000', from_default_currency: 0 }] as TheliaSaleElement['prices'],
  values: [],
  ...more,
});

describe('mapSaleElement', () => {
  it('keeps the row, its prices by currency (one following the rate) and its values in the order read', () => {
    const prices = [...element().prices, { product_sale_elements_id: 70, currency_id: 2, price: '0.000000', promo_price: '0.000000', from_default_currency: 1 }] as TheliaSaleElement['prices'];
    const mapped = mapSaleElement(
      element(
        {},
        {
          prices,
          values: [
            { attributeId: 4, valueId: 9 },
            { attributeId: 1, valueId: 2 },
          ],
        },
      ),
      everyRecordKept,
    );
    expect(mapped.problems).toBeUndefined();
    expect(mapped.record).toMatchObject({
      productId: 7,
      ref: 'REF-7-L',
      quantity: '3.000000',
      weight: '0.250000',
      newness: true,
      prices: { 1: { price: '12.500000', promoPrice: '10.000000', fromDefault: false }, 2: { price: '0.000000', promoPrice: '0.000000', fromDefault: true } },
      attributeAvs: [9, 2],
      createdAt: created.toISOString(),
      updatedAt: created.toISOString(),
    });
  });

  it('names every column it cannot hold: a stock below 0, an unknown currency, two values of one attribute, a skipped product', () => {
    const context: ImportContext = { problemOf: (kind, id) => (kind === 'product' && id === 7 ? 'was skipped (product.ref: is empty)' : undefined) };
    const prices = [{ product_sale_elements_id: 70, currency_id: 999, price: '1', promo_price: '0', from_default_currency: 0 }] as TheliaSaleElement['prices'];
    const values = [
      { attributeId: 1, valueId: 2 },
      { attributeId: 1, valueId: 3 },
    ];
    expect(mapSaleElement(element({ quantity: -1 }, { prices, values }), context).problems?.map((problem) => problem.field)).toEqual([
      'product_sale_elements.product_id',
      'product_sale_elements.quantity',
      'product_price.currency_id',
      'attribute_combination',
    ]);
  });

  it('leaves an EAN that is not a GTIN empty, and says so', () => {
    const mapped = mapSaleElement(element({ ean_code: '12345' }), everyRecordKept);
    expect(mapped.record?.ean).toBe('');
    expect(mapped.normalized).toEqual([{ table: 'product_sale_elements', row: 70, column: 'ean_code', what: 'not a GTIN with a valid check digit: left empty', before: '12345', after: '' }]);
  });
});

describe('the sale elements kind', () => {
  it('fits its most records with the most values each in one DynamoDB transaction (100 operations)', async () => {
    const mapped = mapSaleElement(element(), everyRecordKept);
    const base = mapped.record as SaleElement;
    const records = Array.from(
      { length: importKind.writer.perTransaction },
      (_, k): SaleElement => ({ ...base, id: 100 + k, productId: 100 + k, ref: `REF-${k}`, attributeAvs: [3 * k + 1, 3 * k + 2, 3 * k + 3] }),
    );
    const steps = await importKind.writer.steps(fixedStamp(), records);
    expect(steps.length).toBeLessThanOrEqual(100);
    expect(steps.length).toBeGreaterThan(100 - 8);
  });
});
