import { defineHandler } from '../../lib/http/handler.js';
import rows from '../../lib/reference/data/rows/languages.json' with { type: 'json' };
import { getReference, ReferenceQuery } from '../../lib/reference-rows/index.js';

export const handler = defineHandler('languages/get', { query: ReferenceQuery }, ({ params, query }) => getReference(rows, 'language', params.entityId, query.lang));
