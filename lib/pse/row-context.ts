/**
 * What sale elements' rows need beside them (row.ts), in one round trip when this container has it
 * cached: their products, the rules that price them (lib/tax-rules/operations.ts) and the order of
 * their values (lib/attribute-avs/order.ts). The products, the rules' version and the attributes'
 * positions version are one BatchGet, beside the read of the elements themselves when it can be.
 */
import { valueOrder } from '../attribute-avs/order.js';
import { attributePositionsVersion } from '../attributes/entity.js';
import { products, type Product } from '../products/entity.js';
import type { SaleElement } from '../products/sale-elements.js';
import { pricedBy, type TaxRule } from '../tax-rules/index.js';
import type { ValueOrder } from './row.js';

export interface RowContext {
  products: ReadonlyMap<number, Product>;
  rules: ReadonlyMap<number, TaxRule>;
  /** The order of the elements' values. */
  order: ValueOrder;
}

/** The context of `elements` (read at once with it) and the products of `productIds`. */
export async function rowContext<E extends readonly SaleElement[]>(productIds: readonly number[], elements: Promise<E>): Promise<RowContext & { elements: E }> {
  const [[owners, rules], version, found] = await Promise.all([pricedBy(products.readMany([...new Set(productIds)])), attributePositionsVersion.read(), elements]);
  const order = await valueOrder(
    version,
    found.flatMap((element) => element.attributeAvs),
  );
  return { products: new Map(owners.map((product) => [product.id, product])), rules, order, elements: found };
}
