import { BrandListQuery, listBrands } from '../../lib/brands/list.js';
import { defineHandler } from '../../lib/http/handler.js';
import { brandOfProduct } from '../../lib/products/brand-of.js';

export const handler = defineHandler('brands/list', { query: BrandListQuery }, ({ query, page }) => listBrands(query, page, brandOfProduct));
