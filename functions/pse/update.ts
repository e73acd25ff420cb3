import { defineHandler } from '../../lib/http/handler.js';
import { changePse, PseQuery, PseUpdate } from '../../lib/pse/index.js';

export const handler = defineHandler('pse/update', { body: PseUpdate, query: PseQuery }, ({ params, body, query, expectedVersion }) => changePse(params.pseId, body, query, expectedVersion));
