import { defineHandler } from '../../lib/http/handler.js';

/** GET /api: the open health check. */
export const handler = defineHandler('health/get', {}, async () => ({ text: 'OK' }));
