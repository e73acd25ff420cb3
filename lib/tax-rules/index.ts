export * from './schema.js';
export * from './operations.js';
export { toRow as taxRuleRow, type TaxRuleItem } from './model.js';
