export * from './schema.js';
export * from './operations.js';
export { ProductListQuery, type ProductListInput } from './list.js';
