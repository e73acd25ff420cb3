/**
 * How attribute values live in the table, declared once (docs/api.md): "L" of the attribute "size",
 * what a sale element is made of. One item holds every locale's texts. Lists: every value by id or
 * position (counted), and one attribute's values by position or id, each served by an index. What
 * refers to a value (the sale elements made of it) is counted beside it (references.ts).
 */
import * as v from 'valibot';
import { CATALOG_TEXTS, StoredCatalogTexts } from '../catalog-texts.js';
import { localizedFields } from '../db/changes.js';
import { defineEntity, versionedEntries } from '../db/entity.js';
import { padId } from '../db/keys.js';

export const AttributeAvRecord = v.object({
  id: v.number(),
  /** The attribute it is a value of. */
  attributeId: v.number(),
  /** Its place among its attribute's values: a new one comes after the last. */
  position: v.number(),
  i18n: v.record(v.string(), StoredCatalogTexts),
  ...versionedEntries,
});

export type AttributeAv = v.InferOutput<typeof AttributeAvRecord>;

const byId = (av: AttributeAv) => padId(av.id);
/** Positions are integers ≥ 0: padded, they sort as numbers; the id keeps equal positions apart. */
const byPosition = (av: AttributeAv) => `${padId(av.position)}#${padId(av.id)}`;

export const attributeAvs = defineEntity({
  name: 'attribute value',
  schema: AttributeAvRecord,
  id: (av) => av.id,
  key: (id: number) => ({ pk: `ATTRIBUTE_AV#${id}`, sk: 'ATTRIBUTE_AV' }),
  lists: {
    all: { partition: () => 'ATTRIBUTE_AVS', counted: true, orders: { id: { index: 'GSI1', sortKey: byId }, manual: { index: 'GSI2', sortKey: byPosition } } },
    byAttribute: {
      partition: (av) => `ATTRIBUTE_AVS#ATTRIBUTE#${av.attributeId}`,
      orders: { manual: { index: 'GSI3', sortKey: byPosition }, id: { index: 'GSI4', sortKey: byId } },
    },
  },
  counter: { name: 'ATTRIBUTE_AV' },
  // The fields of the value's row, as it shows them (row.ts).
  audit: {
    resource: 'attribute-av',
    fields: (av) => [{ field: 'ATTRIBUTE_ID', locale: null, value: av.attributeId }, ...localizedFields(av.i18n, CATALOG_TEXTS), { field: 'POSITION', locale: null, value: av.position }],
  },
});
