/** Attributes in batches (docs/batches-and-client.md): the single routes' schemas and operations; no natural key, so no upsert. */
import { defineBatch } from '../batch/declaration.js';
import { createAttribute, deleteAttribute, getAttribute, updateAttribute } from './operations.js';
import { AttributeCreate, AttributeUpdate } from './schema.js';

export const attributeBatch = defineBatch({
  folder: 'attributes',
  grant: 'attribute',
  create: { schema: AttributeCreate, run: createAttribute },
  update: { schema: AttributeUpdate, idInBody: true, run: (_id, input, version, lang) => updateAttribute(input, lang, version) },
  remove: deleteAttribute,
  read: getAttribute,
});
