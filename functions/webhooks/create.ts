import { defineHandler } from '../../lib/http/handler.js';
import { createWebhook, WebhookCreate } from '../../lib/webhooks/index.js';

export const handler = defineHandler('webhooks/create', { body: WebhookCreate }, ({ body }) => createWebhook(body));
