import { CategoryQuery, getCategory } from '../../lib/categories/index.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('categories/get', { query: CategoryQuery }, ({ params, query }) => getCategory(params.entityId, query.lang));
