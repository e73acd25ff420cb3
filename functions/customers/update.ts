import { defineHandler } from '../../lib/http/handler.js';
import { CustomerUpdate, updateCustomer } from '../../lib/customers/index.js';

export const handler = defineHandler('customers/update', { body: CustomerUpdate }, ({ body, expectedVersion }) => updateCustomer(body, expectedVersion));
