import { categoryBatch } from '../../lib/categories/batch.js';
import { defineBatchHandler } from '../../lib/http/batch.js';

export const handler = defineBatchHandler('categories/batch', categoryBatch);
