import { BrandQuery, BrandUpdate, updateBrand } from '../../lib/brands/index.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('brands/update', { body: BrandUpdate, query: BrandQuery }, ({ body, query, expectedVersion }) => updateBrand(body, query.lang, expectedVersion));
