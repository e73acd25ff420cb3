import { defineHandler } from '../../lib/http/handler.js';
import { deleteTaxRule } from '../../lib/tax-rules/index.js';

export const handler = defineHandler('tax-rules/delete', {}, ({ params, expectedVersion }) => deleteTaxRule(params.entityId, expectedVersion));
