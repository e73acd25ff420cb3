import { defineHandler } from '../../lib/http/handler.js';
import { listPse, PseListQuery } from '../../lib/pse/list.js';

export const handler = defineHandler('pse/list', { query: PseListQuery }, ({ query, page }) => listPse(query, page));
