import { AttributeQuery, getAttribute } from '../../lib/attributes/index.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('attributes/get', { query: AttributeQuery }, ({ params, query }) => getAttribute(params.entityId, query.lang));
