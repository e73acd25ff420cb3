import { defineHandler } from '../../lib/http/handler.js';
import { listProducts, ProductListQuery } from '../../lib/products/list.js';

export const handler = defineHandler('products/list', { query: ProductListQuery }, ({ query, page }) => listProducts(query, page));
