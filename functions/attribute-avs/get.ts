import { AttributeAvQuery, getAttributeAv } from '../../lib/attribute-avs/index.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('attribute-avs/get', { query: AttributeAvQuery }, ({ params, query }) => getAttributeAv(params.entityId, query.lang));
