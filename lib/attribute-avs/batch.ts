/** Attribute values in batches (docs/batches-and-client.md): the single routes' schemas and operations; no natural key, so no upsert. */
import { defineBatch } from '../batch/declaration.js';
import { createAttributeAv, deleteAttributeAv, getAttributeAv, updateAttributeAv } from './operations.js';
import { AttributeAvCreate, AttributeAvUpdate } from './schema.js';

export const attributeAvBatch = defineBatch({
  folder: 'attribute-avs',
  grant: 'attribute',
  create: { schema: AttributeAvCreate, run: createAttributeAv },
  update: { schema: AttributeAvUpdate, idInBody: true, run: (_id, input, version, lang) => updateAttributeAv(input, lang, version) },
  remove: deleteAttributeAv,
  read: getAttributeAv,
});
