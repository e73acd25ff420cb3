import { defineHandler } from '../../lib/http/handler.js';
import { getProduct, ProductQuery } from '../../lib/products/index.js';

export const handler = defineHandler('products/get', { query: ProductQuery }, ({ params, query }) => getProduct(params.productId, query.lang));
