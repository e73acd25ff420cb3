export * from './schema.js';
export * from './operations.js';
