import { AttributeCreate, AttributeQuery, createAttribute } from '../../lib/attributes/index.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('attributes/create', { body: AttributeCreate, query: AttributeQuery }, ({ body, query }) => createAttribute(body, query.lang));
