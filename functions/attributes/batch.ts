import { attributeBatch } from '../../lib/attributes/batch.js';
import { defineBatchHandler } from '../../lib/http/batch.js';

export const handler = defineBatchHandler('attributes/batch', attributeBatch);
