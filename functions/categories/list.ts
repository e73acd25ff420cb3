import { CategoryListQuery, listCategories } from '../../lib/categories/list.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('categories/list', { query: CategoryListQuery }, ({ query, page }) => listCategories(query, page));
