export * from './schema.js';
export * from './operations.js';
export { CustomerListQuery, type CustomerListInput } from './list.js';
