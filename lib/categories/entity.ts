/**
 * How categories live in the table, declared once (docs/api.md). One item holds every locale's
 * texts. Lists: every category by id (counted), and a parent's children by position or id, each
 * served by an index. What refers to a category (its children, the products whose default category
 * it is) is a sharded count beside it, made and deleted with it, as tax rules' product counts are:
 * a reference adds to its own shard on condition that the shard exists, which proves the category
 * exists without any two references' writes sharing an item.
 */
import * as v from 'valibot';
import { CATALOG_TEXTS, StoredCatalogTexts, type CatalogText } from '../catalog-texts.js';
import { localizedFields } from '../db/changes.js';
import { defineEntity, versionedEntries } from '../db/entity.js';
import { padId } from '../db/keys.js';
import { bit } from '../row.js';

/** Its texts in each locale: a catalog record's. */
export const TEXT_FIELDS = CATALOG_TEXTS;
export type CategoryText = CatalogText;

export const CategoryRecord = v.object({
  id: v.number(),
  /** The parent category's id; 0 for the root. */
  parent: v.number(),
  visible: v.boolean(),
  /** Its place among its siblings: a new category comes after the last. */
  position: v.number(),
  i18n: v.record(v.string(), StoredCatalogTexts),
  ...versionedEntries,
});

export type Category = v.InferOutput<typeof CategoryRecord>;

const byId = (c: Category) => padId(c.id);
/** Positions are integers ≥ 0: padded, they sort as numbers; the id keeps equal positions apart. */
const byPosition = (c: Category) => `${padId(c.position)}#${padId(c.id)}`;

export const categories = defineEntity({
  name: 'category',
  schema: CategoryRecord,
  id: (c) => c.id,
  key: (id: number) => ({ pk: `CATEGORY#${id}`, sk: 'CATEGORY' }),
  lists: {
    all: { partition: () => 'CATEGORIES', counted: true, orders: { manual: { index: 'GSI4', sortKey: byPosition }, id: { index: 'GSI1', sortKey: byId } } },
    // Every category by its last update (`updated`: what a sync asks for), the id keeping equal instants apart.
    byUpdate: { partition: () => 'CATEGORIES', counted: true, orders: { updated: { index: 'GSI6', sortKey: (c) => `${c.updatedAt}\u0001${byId(c)}` } } },
    // Every category by its creation (`created`).
    byCreation: { partition: () => 'CATEGORIES', counted: true, orders: { created: { index: 'GSI7', sortKey: (c) => `${c.createdAt}\u0001${byId(c)}` } } },
    byParent: {
      partition: (c) => `CATEGORIES#PARENT#${c.parent}`,
      orders: { manual: { index: 'GSI2', sortKey: byPosition }, id: { index: 'GSI3', sortKey: byId } },
    },
  },
  counter: { name: 'CATEGORY' },
  // The fields of the category's row, as it shows them (row.ts).
  audit: {
    resource: 'category',
    fields: (c) => [
      ...localizedFields(c.i18n, TEXT_FIELDS),
      { field: 'PARENT', locale: null, value: c.parent },
      { field: 'VISIBLE', locale: null, value: bit(c.visible) },
      { field: 'POSITION', locale: null, value: c.position },
    ],
  },
});
