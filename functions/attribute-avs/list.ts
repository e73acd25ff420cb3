import { AttributeAvListQuery, listAttributeAvs } from '../../lib/attribute-avs/list.js';
import { defineHandler } from '../../lib/http/handler.js';
import { valuesOfProduct } from '../../lib/products/sale-elements.js';

export const handler = defineHandler('attribute-avs/list', { query: AttributeAvListQuery }, ({ query, page }) => listAttributeAvs(query, page, valuesOfProduct));
