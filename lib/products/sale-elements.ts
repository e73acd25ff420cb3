/**
 * How product sale elements (docs/api.md: what is sold — a variant with its own reference, EAN,
 * stock, weight, flags, attribute values and a price per currency) live in the table, declared once.
 * In the products' folder because a product's writes make, change and delete them (its default sale
 * element is made with it and follows its price and weight); the routes and operations of their own
 * are lib/pse/'s, which reads products and never the other way round.
 *
 * One item a sale element; its prices by currency in it. Lists: a product's sale elements by id, on
 * an index partition of that product (a stock change of the store writes no partition that every
 * other stock change writes too); every other list is the search index's.
 */
import * as v from 'valibot';
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { defineEntity, versionedEntries } from '../db/entity.js';
import { shardedCount, type ShardValues } from '../db/sharded-count.js';
import { padId } from '../db/keys.js';
import { identityOf } from '../identity.js';
import { inTurns } from '../in-turns.js';
import { formatMicros, storedMicros } from '../money.js';
import { bit } from '../row.js';
import { products, type Product } from './entity.js';

/** A sale element's price in one currency: untaxed, its promo price, and whether it follows the default currency's times the rate. */
export const SaleElementPrice = v.object({ price: v.string(), promoPrice: v.string(), fromDefault: v.boolean() });
export type SaleElementPrice = v.InferOutput<typeof SaleElementPrice>;

/**
 * A stock take applied to the item and not yet recorded as a change (stock-takes.ts): its id (the
 * change's), the amount it added (signed), when, and who took it.
 */
export const StoredTake = v.object({ id: v.string(), delta: v.string(), at: v.number(), apiKey: v.string(), requestId: v.string() });
export type StoredTake = v.InferOutput<typeof StoredTake>;

/** The stock as a decimal text with six fraction digits, from its stored number (read as a number, or as its text when a number would round it) or the text items stored before held. */
const stockText = (stored: string | number): string => formatMicros(storedMicros(stored));

export const SaleElementRecord = v.object({
  id: v.number(),
  productId: v.number(),
  ref: v.string(),
  /** A GTIN, or '' for none. */
  ean: v.string(),
  /**
   * Exact decimal strings with six fraction digits. The stock is stored as a DynamoDB number, which a
   * take adds to (items stored before hold its text, until their next write).
   */
  quantity: v.pipe(v.union([v.string(), v.number()]), v.transform(stockText)),
  weight: v.string(),
  promo: v.boolean(),
  newness: v.boolean(),
  isDefault: v.boolean(),
  /** By currency id. */
  prices: v.record(v.string(), SaleElementPrice),
  /** Attribute value ids, by their attribute's position. */
  attributeAvs: v.array(v.number()),
  /** Takes applied and not yet recorded, oldest first: a write of the other fields waits for none. */
  takes: v.optional(v.array(StoredTake)),
  ...versionedEntries,
});

export type SaleElement = v.InferOutput<typeof SaleElementRecord>;

/** The most sale elements a product has: deleting a product deletes them all in its one transaction (100 items). */
export const MAX_SALE_ELEMENTS = 10;
/** The most attribute values one sale element combines (each is counted into the value's references in its transactions). */
export const MAX_ATTRIBUTE_VALUES = 3;

/**
 * A product's sale elements, counted on one item beside it (`PSE_OF#<id>`): made with the product (at
 * one, its default), each create counting in on condition that it exists and stays within
 * MAX_SALE_ELEMENTS, and deleted with the product as read, so that a sale element created meanwhile
 * makes the delete read again. One item: only the creates and deletes of one product's sale
 * elements meet on it, never a stock change.
 */
export const saleElementCount = (productId: number) => shardedCount(`PSE_OF#${productId}`, 1);

/** The resource sale elements' changes name (`pse.updated`, …). */
export const SALE_ELEMENT_CHANGES = 'pse';

export const saleElements = defineEntity({
  name: 'product sale element',
  schema: SaleElementRecord,
  id: (e) => e.id,
  key: (id: number) => ({ pk: `PSE#${id}`, sk: 'PSE' }),
  lists: { byProduct: { partition: (e) => `PSE#PRODUCT#${e.productId}`, orders: { id: { index: 'GSI1', sortKey: (e) => padId(e.id) } } } },
  // References that read the same are the same reference (lib/identity.ts), as products' refs.
  locks: { ref: { prefix: 'PSE_REF', valueOf: (e) => e.ref, normalize: identityOf } },
  counter: { name: 'PSE' },
  storedAs: { quantity: (quantity) => NumberValue.from(quantity) },
  pendingLog: 'takes',
  walk: () => everySaleElement(),
  // The fields of the sale element's row, as it shows them (lib/pse/row.ts), but those it derives.
  audit: {
    resource: SALE_ELEMENT_CHANGES,
    fields: (e) => [
      { field: 'PRODUCT_ID', locale: null, value: e.productId },
      { field: 'REF', locale: null, value: e.ref },
      { field: 'EAN_CODE', locale: null, value: e.ean },
      { field: 'QUANTITY', locale: null, value: e.quantity },
      { field: 'IS_PROMO', locale: null, value: bit(e.promo) },
      { field: 'IS_NEW', locale: null, value: bit(e.newness) },
      { field: 'IS_DEFAULT', locale: null, value: bit(e.isDefault) },
      { field: 'WEIGHT', locale: null, value: e.weight },
      // A price per currency: `locale` names the currency (`currency:2`), as a text's names its language.
      ...Object.entries(e.prices).flatMap(([currency, price]) => [
        { field: 'PRICE', locale: `currency:${currency}`, value: price.price },
        { field: 'PROMO_PRICE', locale: `currency:${currency}`, value: price.promoPrice },
        { field: 'USE_EXCHANGE_RATE', locale: `currency:${currency}`, value: bit(price.fromDefault) },
      ]),
      { field: 'ATTRIBUTE_AVS', locale: null, value: e.attributeAvs },
    ],
  },
});

/** Products whose sale elements a walk reads at once. */
const WALK_CONCURRENCY = 8;

/**
 * Every sale element, a page of products' at a time (each product's from its own list: at most
 * MAX_SALE_ELEMENTS), a few products at once: a page holds up to 1 MB of products, about a thousand,
 * and asking for all their lists at once queued them past the client's time-out (an import's walk of
 * 100 000 products failed so against DynamoDB Local).
 */
async function* everySaleElement(): AsyncGenerator<SaleElement[]> {
  for await (const page of products.pages()) {
    const lists = await inTurns(page, WALK_CONCURRENCY, (product) =>
      saleElements.list('byProduct', { order: 'id', reverse: false, where: { productId: product.id } }, { limit: MAX_SALE_ELEMENTS, offset: 0 }),
    );
    yield lists.flatMap((list) => list.items);
  }
}

/** A product's default sale element as its create makes it (docs/api.md): its ref, no stock, no attribute value, its price in its currency. */
export function defaultSaleElementOf(product: Product, id: number): SaleElement {
  return {
    id,
    productId: product.id,
    ref: product.ref,
    ean: '',
    quantity: '0.000000',
    weight: product.weight,
    promo: false,
    newness: false,
    isDefault: true,
    prices: { [product.currency]: { price: product.price, promoPrice: '0.000000', fromDefault: false } },
    attributeAvs: [],
    version: 1,
    createdAt: product.createdAt,
    updatedAt: product.updatedAt,
  };
}

/** What a write reads of a product's sale elements: them, and their count as read. */
export interface ProductSaleElements {
  elements: readonly SaleElement[];
  count: ShardValues | undefined;
}

/** The attribute values a product's sale elements are made of: what `GET /api/attribute-avs?product=N` lists (docs/api.md). */
export async function valuesOfProduct(productId: number): Promise<number[]> {
  const { items } = await saleElements.list('byProduct', { order: 'id', reverse: false, where: { productId } }, { limit: MAX_SALE_ELEMENTS, offset: 0 });
  return [...new Set(items.flatMap((element) => element.attributeAvs))];
}
