import { customerBatch } from '../../lib/customers/batch.js';
import { defineBatchHandler } from '../../lib/http/batch.js';

export const handler = defineBatchHandler('customers/batch', customerBatch);
