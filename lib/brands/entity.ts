/**
 * How brands live in the table, declared once (docs/api.md). One item holds every locale's texts.
 * Lists: every brand by id, position, last update or creation (counted), each served by an index.
 * What refers to a brand (the products of it) is a sharded count beside it (references.ts).
 */
import * as v from 'valibot';
import { localizedFields } from '../db/changes.js';
import { defineEntity, versionedEntries } from '../db/entity.js';
import { padId } from '../db/keys.js';
import { bit } from '../row.js';

/** Its texts in each locale: a catalog record's, and the page's meta texts (Thelia's `brand_i18n`). */
export const BRAND_TEXTS = ['title', 'chapo', 'description', 'postscriptum', 'meta_title', 'meta_description', 'meta_keywords'] as const;
export type BrandText = (typeof BRAND_TEXTS)[number];

export const BrandRecord = v.object({
  id: v.number(),
  visible: v.boolean(),
  /** Its place among the brands: a new brand comes after the last. */
  position: v.number(),
  i18n: v.record(v.string(), v.object(Object.fromEntries(BRAND_TEXTS.map((field) => [field, v.optional(v.string())])) as Record<BrandText, v.OptionalSchema<v.StringSchema<undefined>, undefined>>)),
  ...versionedEntries,
});

export type Brand = v.InferOutput<typeof BrandRecord>;

const byId = (b: Brand) => padId(b.id);
/** Positions are integers ≥ 0: padded, they sort as numbers; the id keeps equal positions apart. */
const byPosition = (b: Brand) => `${padId(b.position)}#${padId(b.id)}`;

export const brands = defineEntity({
  name: 'brand',
  schema: BrandRecord,
  id: (b) => b.id,
  key: (id: number) => ({ pk: `BRAND#${id}`, sk: 'BRAND' }),
  lists: {
    all: { partition: () => 'BRANDS', counted: true, orders: { id: { index: 'GSI1', sortKey: byId }, manual: { index: 'GSI2', sortKey: byPosition } } },
    byUpdate: { partition: () => 'BRANDS', counted: true, orders: { updated: { index: 'GSI6', sortKey: (b) => `${b.updatedAt}\u0001${byId(b)}` } } },
    byCreation: { partition: () => 'BRANDS', counted: true, orders: { created: { index: 'GSI7', sortKey: (b) => `${b.createdAt}\u0001${byId(b)}` } } },
  },
  counter: { name: 'BRAND' },
  // The fields of the brand's row, as it shows them (row.ts).
  audit: {
    resource: 'brand',
    fields: (b) => [...localizedFields(b.i18n, BRAND_TEXTS), { field: 'POSITION', locale: null, value: b.position }, { field: 'VISIBLE', locale: null, value: bit(b.visible) }],
  },
});
