export * from './schema.js';
export * from './operations.js';
export type { ReferenceRows } from './rows.js';
