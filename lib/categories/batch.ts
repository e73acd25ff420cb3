/** Categories in batches (docs/batches-and-client.md): the single routes' schemas and operations; no natural key, so no upsert. */
import { defineBatch } from '../batch/declaration.js';
import { createCategory, deleteCategory, getCategory, updateCategory } from './operations.js';
import { CategoryCreate, CategoryUpdate } from './schema.js';

export const categoryBatch = defineBatch({
  folder: 'categories',
  grant: 'category',
  create: { schema: CategoryCreate, run: createCategory },
  update: { schema: CategoryUpdate, idInBody: true, run: (_id, input, version, lang) => updateCategory(input, lang, version) },
  remove: deleteCategory,
  read: getCategory,
});
