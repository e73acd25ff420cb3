import { defineHandler } from '../../lib/http/handler.js';
import { getPse, PseQuery } from '../../lib/pse/index.js';

export const handler = defineHandler('pse/get', { query: PseQuery }, ({ params, query }) => getPse(params.pseId, query));
