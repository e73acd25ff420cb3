import { defineHandler } from '../../lib/http/handler.js';
import { deleteWebhook } from '../../lib/webhooks/index.js';

export const handler = defineHandler('webhooks/delete', {}, ({ params }) => deleteWebhook(params.webhookId));
