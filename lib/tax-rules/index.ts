export * from './schema.js';
export * from './operations.js';
export { defaultTaxRule, taxRulesVersion, type TaxRule } from './entity.js';
