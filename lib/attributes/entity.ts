/**
 * How attributes live in the table, declared once (docs/api.md): what a sale element's values are
 * values of ("size", "colour"). One item holds every locale's texts. Lists: every attribute by id,
 * position, last update or creation (counted), each served by an index. Its values are counted
 * beside it (references.ts): an attribute that has values cannot be deleted.
 */
import * as v from 'valibot';
import { CATALOG_TEXTS, StoredCatalogTexts } from '../catalog-texts.js';
import { localizedFields } from '../db/changes.js';
import { defineEntity, versionedEntries } from '../db/entity.js';
import { padId } from '../db/keys.js';
import { defineVersionItem } from '../db/version-item.js';

export const AttributeRecord = v.object({
  id: v.number(),
  /** Its place among the attributes: a new one comes after the last. */
  position: v.number(),
  i18n: v.record(v.string(), StoredCatalogTexts),
  ...versionedEntries,
});

export type Attribute = v.InferOutput<typeof AttributeRecord>;

const byId = (a: Attribute) => padId(a.id);
/** Positions are integers ≥ 0: padded, they sort as numbers; the id keeps equal positions apart. */
const byPosition = (a: Attribute) => `${padId(a.position)}#${padId(a.id)}`;

export const attributes = defineEntity({
  name: 'attribute',
  schema: AttributeRecord,
  id: (a) => a.id,
  key: (id: number) => ({ pk: `ATTRIBUTE#${id}`, sk: 'ATTRIBUTE' }),
  lists: {
    all: { partition: () => 'ATTRIBUTES', counted: true, orders: { id: { index: 'GSI1', sortKey: byId }, manual: { index: 'GSI2', sortKey: byPosition } } },
    byUpdate: { partition: () => 'ATTRIBUTES', counted: true, orders: { updated: { index: 'GSI6', sortKey: (a) => `${a.updatedAt}\u0001${byId(a)}` } } },
    byCreation: { partition: () => 'ATTRIBUTES', counted: true, orders: { created: { index: 'GSI7', sortKey: (a) => `${a.createdAt}\u0001${byId(a)}` } } },
  },
  counter: { name: 'ATTRIBUTE' },
  // The fields of the attribute's row, as it shows them (row.ts).
  audit: { resource: 'attribute', fields: (a) => [...localizedFields(a.i18n, CATALOG_TEXTS), { field: 'POSITION', locale: null, value: a.position }] },
});

/**
 * Grows with every move of an attribute, so that containers can cache the attributes' positions, in
 * whose order a sale element's values are shown (lib/attribute-avs/order.ts). A new attribute needs
 * no bump (a cache reads what it lacks); one that has values is never deleted.
 */
export const attributePositionsVersion = defineVersionItem({ pk: 'ATTRIBUTE_POSITIONS', sk: 'VERSION' });

/** The steps a write of `next` over `stored` adds: the positions' version bumped when it moves the attribute. */
export const positionSteps = (stored: Attribute, next: Attribute) => (stored.position === next.position ? [] : [attributePositionsVersion.bump()]);
