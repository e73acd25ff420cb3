import { BrandListQuery, listBrands } from '../../lib/brands/list.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('brands/list', { query: BrandListQuery }, ({ query, page }) => listBrands(query, page));
