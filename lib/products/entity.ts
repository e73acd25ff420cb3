/**
 * How products live in the table, declared once. One item holds every locale's texts; prices and
 * weights are exact decimal strings. Lists: every product by id or ref (counted), the same two
 * orders per visibility, so that `visible=` is served by an index, never a filter, and the products
 * of a default category by id.
 */
import * as v from 'valibot';
import { CATALOG_TEXTS, StoredCatalogTexts, type CatalogText } from '../catalog-texts.js';
import { localizedFields } from '../db/changes.js';
import { defineEntity, versionedEntries } from '../db/entity.js';
import { bit } from '../row.js';
import { padId, SORT_TEXT_BYTES, sortablePrefix } from '../db/keys.js';
import { identityOf } from '../identity.js';
import { decimalValue, fold } from '../db/lists/query.js';
import { storedMicros } from '../money.js';

/** Its texts in each locale: a catalog record's. */
export const TEXT_FIELDS = CATALOG_TEXTS;
export type ProductText = CatalogText;

export const ProductRecord = v.object({
  id: v.number(),
  ref: v.string(),
  /** Exact decimal strings with six fraction digits. */
  price: v.string(),
  weight: v.string(),
  currency: v.number(),
  taxRuleId: v.number(),
  visible: v.boolean(),
  brandId: v.number(),
  defaultCategory: v.number(),
  /**
   * Whether the product is counted among its default category's references (lib/categories/), which
   * it then names for sure; absent on products stored before categories could be checked.
   */
  categoryCounted: v.optional(v.boolean()),
  /**
   * Whether the product is counted among its brand's references (lib/brands/), which it then names
   * for sure; absent on products stored before brands could be checked, which keep their `brandId`.
   */
  brandCounted: v.optional(v.boolean()),
  /**
   * Its default sale element (lib/products/sale-elements.ts), whose price in the product's currency
   * and weight the product shows; absent on products stored before sale elements (a migration makes it).
   */
  defaultPseId: v.optional(v.number()),
  i18n: v.record(v.string(), StoredCatalogTexts),
  ...versionedEntries,
});

export type Product = v.InferOutput<typeof ProductRecord>;

const byId = (p: Product) => padId(p.id);
/**
 * Refs sort folded, as texts sort (docs/lists.md: case- and accent-insensitively); the id after a
 * separator below any printable character keeps equal refs apart (and orders refs that are equal up
 * to what a sort key holds).
 */
const byRef = (p: Product) => `${sortablePrefix(fold(p.ref), SORT_TEXT_BYTES)}\u0001${padId(p.id)}`;

/** A stored decimal (a price, a weight) as a key that sorts as it compares: its padded millionths, as the search index keeps it. */
export const decimalKey = (stored: string): string => decimalValue(storedMicros(stored));
/** Prices sort as their keys; the id keeps equal prices apart. */
const byPrice = (p: Product) => `${decimalKey(p.price)}\u0001${padId(p.id)}`;

/**
 * The lists of every product are spread over this many index partitions each (by id): a store's
 * product writes (an import, a price sync) would otherwise all land on one partition of each of
 * five indexes, which DynamoDB holds to 1 000 writes a second. A page queries the shards at once.
 */
const LIST_SHARDS = 8;

export const products = defineEntity({
  name: 'product',
  schema: ProductRecord,
  id: (p) => p.id,
  key: (id: number) => ({ pk: `PRODUCT#${id}`, sk: 'PRODUCT' }),
  lists: {
    all: { partition: () => 'PRODUCTS', shards: LIST_SHARDS, counted: true, orders: { id: { index: 'GSI1', sortKey: byId }, ref: { index: 'GSI2', sortKey: byRef } } },
    byVisibility: {
      partition: (p) => `PRODUCTS#VISIBLE#${p.visible ? 1 : 0}`,
      shards: LIST_SHARDS,
      orders: { id: { index: 'GSI3', sortKey: byId }, ref: { index: 'GSI4', sortKey: byRef } },
    },
    // A category may hold most of a store's products (or none, `0`, every product not yet sorted): sharded as the lists of every product.
    byCategory: { partition: (p) => `PRODUCTS#CATEGORY#${p.defaultCategory}`, shards: LIST_SHARDS, orders: { id: { index: 'GSI5', sortKey: byId } } },
    // Every product by price (`min_price`, `max_price`: the order shoppers and back offices ask for most).
    byPrice: { partition: () => 'PRODUCTS', shards: LIST_SHARDS, counted: true, orders: { price: { index: 'GSI6', sortKey: byPrice } } },
    // Every product by its last update (`updated`, and `updated_since` as a range of it: what a sync asks), the id keeping equal instants apart.
    byUpdate: { partition: () => 'PRODUCTS', shards: LIST_SHARDS, counted: true, orders: { updated: { index: 'GSI7', sortKey: (p) => `${p.updatedAt}\u0001${byId(p)}` } } },
    // Every product by its creation (`created`, and `created_since` as a range of it).
    byCreation: { partition: () => 'PRODUCTS', shards: LIST_SHARDS, counted: true, orders: { created: { index: 'GSI8', sortKey: (p) => `${p.createdAt}\u0001${byId(p)}` } } },
  },
  // Refs that read the same are the same ref (lib/identity.ts); before, only their case was folded.
  locks: { ref: { prefix: 'PRODUCT_REF', valueOf: (p) => p.ref, normalize: identityOf, formerly: (ref) => ref.toLowerCase() } },
  counter: { name: 'PRODUCT' },
  // The fields of the product's row, as it shows them (row.ts), but those it derives.
  audit: {
    resource: 'product',
    fields: (p) => [
      { field: 'REF', locale: null, value: p.ref },
      ...localizedFields(p.i18n, TEXT_FIELDS),
      { field: 'PRICE', locale: null, value: p.price },
      { field: 'CURRENCY', locale: null, value: p.currency },
      { field: 'WEIGHT', locale: null, value: p.weight },
      { field: 'VISIBLE', locale: null, value: bit(p.visible) },
      { field: 'DEFAULT_CATEGORY', locale: null, value: p.defaultCategory },
      { field: 'TAX_RULE_ID', locale: null, value: p.taxRuleId },
      { field: 'BRAND_ID', locale: null, value: p.brandId },
    ],
  },
});
