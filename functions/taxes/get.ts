import { defineHandler } from '../../lib/http/handler.js';
import rows from '../../lib/reference/data/rows/taxes.json' with { type: 'json' };
import { getReference, ReferenceQuery } from '../../lib/reference-rows/index.js';

export const handler = defineHandler('taxes/get', { query: ReferenceQuery }, ({ params, query }) => getReference(rows, 'tax', params.entityId, query.lang));
