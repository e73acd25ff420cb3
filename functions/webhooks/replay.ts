import { defineHandler } from '../../lib/http/handler.js';
import { ReplayBody, replayWebhook } from '../../lib/webhooks/index.js';

export const handler = defineHandler('webhooks/replay', { body: ReplayBody }, async ({ params, body, feedPosition }) => replayWebhook(params.webhookId, await feedPosition(body.cursor)));
