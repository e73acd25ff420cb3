import { defineHandler } from '../../lib/http/handler.js';
import { getCustomer } from '../../lib/customers/index.js';

export const handler = defineHandler('customers/get', {}, ({ params }) => getCustomer(params.entityId));
