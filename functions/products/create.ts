import { defineHandler } from '../../lib/http/handler.js';
import { createProduct, ProductCreate, ProductQuery } from '../../lib/products/index.js';

export const handler = defineHandler('products/create', { body: ProductCreate, query: ProductQuery }, ({ body, query }) => createProduct(body, query.lang));
