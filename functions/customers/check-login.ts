import { defineHandler } from '../../lib/http/handler.js';
import { CheckLogin, checkLogin } from '../../lib/customers/index.js';

export const handler = defineHandler('customers/check-login', { body: CheckLogin }, ({ body }) => checkLogin(body));
