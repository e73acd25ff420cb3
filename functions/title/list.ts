import { defineHandler } from '../../lib/http/handler.js';
import rows from '../../lib/reference/data/rows/title.json' with { type: 'json' };
import { listReference, ReferenceListQuery } from '../../lib/reference-rows/index.js';

export const handler = defineHandler('title/list', { query: ReferenceListQuery }, ({ query, page }) => listReference(rows, query, page));
