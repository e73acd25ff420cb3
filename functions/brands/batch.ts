import { brandBatch } from '../../lib/brands/batch.js';
import { defineBatchHandler } from '../../lib/http/batch.js';

export const handler = defineBatchHandler('brands/batch', brandBatch);
