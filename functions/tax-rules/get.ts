import { defineHandler } from '../../lib/http/handler.js';
import { getTaxRule, TaxRuleQuery } from '../../lib/tax-rules/index.js';

export const handler = defineHandler('tax-rules/get', { query: TaxRuleQuery }, ({ params, query }) => getTaxRule(params.entityId, query.lang));
