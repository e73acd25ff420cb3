import { deleteBrand } from '../../lib/brands/index.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('brands/delete', {}, ({ params, expectedVersion }) => deleteBrand(params.entityId, expectedVersion));
