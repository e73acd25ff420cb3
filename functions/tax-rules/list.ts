import { defineHandler } from '../../lib/http/handler.js';
import { listTaxRules, TaxRuleListQuery } from '../../lib/tax-rules/index.js';

export const handler = defineHandler('tax-rules/list', { query: TaxRuleListQuery }, ({ query, page }) => listTaxRules(query, page));
