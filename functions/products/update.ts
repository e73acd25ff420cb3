import { defineHandler } from '../../lib/http/handler.js';
import { ProductUpdate, updateProduct } from '../../lib/products/index.js';

export const handler = defineHandler('products/update', { body: ProductUpdate }, ({ params, body, expectedVersion }) => updateProduct(params.productId, body, expectedVersion));
