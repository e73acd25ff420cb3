export * from './schema.js';
export * from './operations.js';
export { defaultTaxRule, productsUsing, taxRulesVersion, type TaxRule } from './entity.js';
