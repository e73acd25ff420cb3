import { attributeAvBatch } from '../../lib/attribute-avs/batch.js';
import { defineBatchHandler } from '../../lib/http/batch.js';

export const handler = defineBatchHandler('attribute-avs/batch', attributeAvBatch);
