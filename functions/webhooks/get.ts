import { defineHandler } from '../../lib/http/handler.js';
import { getWebhook } from '../../lib/webhooks/index.js';

export const handler = defineHandler('webhooks/get', {}, ({ params }) => getWebhook(params.webhookId));
