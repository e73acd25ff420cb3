/** Brands in batches (docs/batches-and-client.md): the single routes' schemas and operations; no natural key, so no upsert. */
import { defineBatch } from '../batch/declaration.js';
import { createBrand, deleteBrand, getBrand, updateBrand } from './operations.js';
import { BrandCreate, BrandUpdate } from './schema.js';

export const brandBatch = defineBatch({
  folder: 'brands',
  grant: 'brand',
  create: { schema: BrandCreate, run: createBrand },
  update: { schema: BrandUpdate, idInBody: true, run: (_id, input, version, lang) => updateBrand(input, lang, version) },
  remove: deleteBrand,
  read: getBrand,
});
