export * from './schema.js';
export * from './operations.js';
export type { TaxRuleItem } from './model.js';
