/** Customers in batches (docs/batches-and-client.md): the single routes' schemas and operations; upsert by `email`. */
import { defineBatch } from '../batch/declaration.js';
import { identityOf } from '../identity.js';
import { customers } from './entity.js';
import { createCustomer, deleteCustomer, getCustomer, updateCustomer } from './operations.js';
import { CustomerCreate, CustomerUpdate } from './schema.js';

export const customerBatch = defineBatch({
  folder: 'customers',
  grant: 'customer',
  create: { schema: CustomerCreate, run: (input) => createCustomer(input) },
  update: { schema: CustomerUpdate, idInBody: true, run: (_id, input, version) => updateCustomer(input, version) },
  remove: deleteCustomer,
  read: (id) => getCustomer(id),
  upsert: {
    field: 'email',
    key: (input) => identityOf(input.email),
    // The lock alone: the update that follows reads the record itself.
    find: (input) => customers.ownerByLock('email', input.email),
    update: (id, input) => updateCustomer({ ...input, id }, undefined),
  },
});
