import { deleteAttribute } from '../../lib/attributes/index.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('attributes/delete', {}, ({ params, expectedVersion }) => deleteAttribute(params.entityId, expectedVersion));
