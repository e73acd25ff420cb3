import { deleteAttributeAv } from '../../lib/attribute-avs/index.js';
import { defineHandler } from '../../lib/http/handler.js';

export const handler = defineHandler('attribute-avs/delete', {}, ({ params, expectedVersion }) => deleteAttributeAv(params.entityId, expectedVersion));
