import { defineOpenHandler, Document } from '../../lib/http/open-handler.js';

const ok = new Document('OK');

/** GET /api: the open health check. */
export const handler = defineOpenHandler('health/get', async () => ok);
