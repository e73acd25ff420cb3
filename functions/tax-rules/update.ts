import { defineHandler } from '../../lib/http/handler.js';
import { TaxRuleQuery, TaxRuleUpdate, updateTaxRule } from '../../lib/tax-rules/index.js';

export const handler = defineHandler('tax-rules/update', { body: TaxRuleUpdate, query: TaxRuleQuery }, ({ body, query, expectedVersion }) => updateTaxRule(body, query.lang, expectedVersion));
