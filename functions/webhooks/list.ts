import { defineHandler } from '../../lib/http/handler.js';
import { listWebhooks } from '../../lib/webhooks/index.js';

export const handler = defineHandler('webhooks/list', {}, ({ page }) => listWebhooks(page));
