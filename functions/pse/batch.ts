import { defineBatchHandler } from '../../lib/http/batch.js';
import { pseBatch } from '../../lib/pse/batch.js';

export const handler = defineBatchHandler('pse/batch', pseBatch);
