import { defineHandler } from '../../lib/http/handler.js';
import { listPseOfProduct, PseQuery } from '../../lib/pse/index.js';

export const handler = defineHandler('pse/product', { query: PseQuery }, ({ params, query }) => listPseOfProduct(params.productId, query));
