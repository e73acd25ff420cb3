import { AttributeListQuery, listAttributes } from '../../lib/attributes/list.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('attributes/list', { query: AttributeListQuery }, ({ query, page }) => listAttributes(query, page));
