import { productBatch } from '../../lib/products/batch.js';
import { defineBatchHandler } from '../../lib/http/batch.js';

export const handler = defineBatchHandler('products/batch', productBatch);
