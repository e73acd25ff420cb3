export * from './schema.js';
export * from './operations.js';
export { CategoryListQuery, type CategoryListInput } from './list.js';
