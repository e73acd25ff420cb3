import { defineHandler } from '../../lib/http/handler.js';
import { createTaxRule, TaxRuleCreate, TaxRuleQuery } from '../../lib/tax-rules/index.js';

export const handler = defineHandler('tax-rules/create', { body: TaxRuleCreate, query: TaxRuleQuery }, ({ body, query }) => createTaxRule(body, query.lang));
