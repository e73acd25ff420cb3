import { AttributeAvQuery, AttributeAvUpdate, updateAttributeAv } from '../../lib/attribute-avs/index.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('attribute-avs/update', { body: AttributeAvUpdate, query: AttributeAvQuery }, ({ body, query, expectedVersion }) =>
  updateAttributeAv(body, query.lang, expectedVersion),
);
