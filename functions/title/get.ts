import { defineHandler } from '../../lib/http/handler.js';
import rows from '../../lib/reference/data/rows/title.json' with { type: 'json' };
import { getReference, ReferenceQuery } from '../../lib/reference-rows/index.js';

export const handler = defineHandler('title/get', { query: ReferenceQuery }, ({ params, query }) => getReference(rows, 'customer title', params.entityId, query.lang));
