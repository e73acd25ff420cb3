import { defineHandler } from '../../lib/http/handler.js';
import { PseQuery, PseUpdate, updatePse } from '../../lib/pse/index.js';

export const handler = defineHandler('pse/update', { body: PseUpdate, query: PseQuery }, ({ params, body, query, expectedVersion }) => updatePse(params.pseId, body, query, expectedVersion));
