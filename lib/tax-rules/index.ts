export * from './schema.js';
export * from './operations.js';
export { defaultTaxRule, type TaxRule } from './entity.js';
