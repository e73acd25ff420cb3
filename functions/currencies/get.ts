import { defineHandler } from '../../lib/http/handler.js';
import rows from '../../lib/reference/data/rows/currencies.json' with { type: 'json' };
import { getReference, ReferenceQuery } from '../../lib/reference-rows/index.js';

export const handler = defineHandler('currencies/get', { query: ReferenceQuery }, ({ params, query }) => getReference(rows, 'currency', params.entityId, query.lang));
