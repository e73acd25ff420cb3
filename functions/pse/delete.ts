import { defineHandler } from '../../lib/http/handler.js';
import { deletePse } from '../../lib/pse/index.js';

export const handler = defineHandler('pse/delete', {}, ({ params, expectedVersion }) => deletePse(params.pseId, expectedVersion));
