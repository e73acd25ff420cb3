import { defineHandler } from '../../lib/http/handler.js';
import { createPse, PseCreate, PseQuery } from '../../lib/pse/index.js';

export const handler = defineHandler('pse/create', { body: PseCreate, query: PseQuery }, ({ body, query }) => createPse(body, query));
