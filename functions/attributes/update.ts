import { AttributeQuery, AttributeUpdate, updateAttribute } from '../../lib/attributes/index.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('attributes/update', { body: AttributeUpdate, query: AttributeQuery }, ({ body, query, expectedVersion }) => updateAttribute(body, query.lang, expectedVersion));
