import { defineHandler } from '../../lib/http/handler.js';
import { deleteCustomer } from '../../lib/customers/index.js';

export const handler = defineHandler('customers/delete', {}, ({ params, expectedVersion }) => deleteCustomer(params.entityId, expectedVersion));
