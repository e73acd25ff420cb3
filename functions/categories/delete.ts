import { deleteCategory } from '../../lib/categories/index.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('categories/delete', {}, ({ params, expectedVersion }) => deleteCategory(params.entityId, expectedVersion));
