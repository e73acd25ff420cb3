import { BrandQuery, getBrand } from '../../lib/brands/index.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('brands/get', { query: BrandQuery }, ({ params, query }) => getBrand(params.entityId, query.lang));
