import { CategoryQuery, CategoryUpdate, updateCategory } from '../../lib/categories/index.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('categories/update', { body: CategoryUpdate, query: CategoryQuery }, ({ body, query, expectedVersion }) => updateCategory(body, query.lang, expectedVersion));
