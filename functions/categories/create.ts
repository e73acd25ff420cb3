import { CategoryCreate, CategoryQuery, createCategory } from '../../lib/categories/index.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('categories/create', { body: CategoryCreate, query: CategoryQuery }, ({ body, query }) => createCategory(body, query.lang));
