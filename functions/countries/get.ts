import { defineHandler } from '../../lib/http/handler.js';
import rows from '../../lib/reference/data/rows/countries.json' with { type: 'json' };
import { getReference, ReferenceQuery } from '../../lib/reference-rows/index.js';

export const handler = defineHandler('countries/get', { query: ReferenceQuery }, ({ params, query }) => getReference(rows, 'country', params.entityId, query.lang));
