import { AttributeAvCreate, AttributeAvQuery, createAttributeAv } from '../../lib/attribute-avs/index.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('attribute-avs/create', { body: AttributeAvCreate, query: AttributeAvQuery }, ({ body, query }) => createAttributeAv(body, query.lang));
