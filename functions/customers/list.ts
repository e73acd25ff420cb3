import { defineHandler } from '../../lib/http/handler.js';
import { CustomerListQuery, listCustomers } from '../../lib/customers/list.js';

export const handler = defineHandler('customers/list', { query: CustomerListQuery }, ({ query, page }) => listCustomers(query, page));
