import { defineHandler } from '../../lib/http/handler.js';
import { CheckLogin, checkLogin } from '../../lib/customers/index.js';
import { dummyHash } from '../../lib/customers/password.js';

// Made during the Lambda's init phase, so that no unknown email ever waits for it (and shows it by its timing).
void dummyHash();

export const handler = defineHandler('customers/check-login', { body: CheckLogin }, ({ body }) => checkLogin(body));
