import { defineHandler } from '../../lib/http/handler.js';
import { updateWebhook, WebhookUpdate } from '../../lib/webhooks/index.js';

export const handler = defineHandler('webhooks/update', { body: WebhookUpdate }, ({ params, body }) => updateWebhook(params.webhookId, body));
