/** Products in batches (docs/batches-and-client.md): the single routes' schemas and operations; upsert by `ref`. */
import { defineBatch } from '../batch/declaration.js';
import { identityOf } from '../identity.js';
import { products } from './entity.js';
import { createProduct, deleteProduct, getProduct, updateProduct } from './operations.js';
import { ProductCreate, ProductUpdate } from './schema.js';

export const productBatch = defineBatch({
  folder: 'products',
  grant: 'product',
  create: { schema: ProductCreate, run: createProduct },
  update: { schema: ProductUpdate, idInBody: false, run: updateProduct },
  remove: deleteProduct,
  read: getProduct,
  upsert: {
    field: 'ref',
    key: (input) => identityOf(input.ref),
    // The lock alone: the update that follows reads the record itself.
    find: (input) => products.ownerByLock('ref', input.ref),
    update: (id, input) => updateProduct(id, input, undefined),
  },
});
