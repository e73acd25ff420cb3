import { defineHandler } from '../../lib/http/handler.js';
import { createCustomer, CustomerCreate } from '../../lib/customers/index.js';

export const handler = defineHandler('customers/create', { body: CustomerCreate }, ({ body }) => createCustomer(body));
