import { BrandCreate, BrandQuery, createBrand } from '../../lib/brands/index.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('brands/create', { body: BrandCreate, query: BrandQuery }, ({ body, query }) => createBrand(body, query.lang));
