import { defineHandler } from '../../lib/http/handler.js';
import { deleteProduct } from '../../lib/products/index.js';

export const handler = defineHandler('products/delete', {}, ({ params, expectedVersion }) => deleteProduct(params.productId, expectedVersion));
