import { defineHandler } from '../../lib/http/handler.js';
import { ReplayBody, replayWebhook } from '../../lib/webhooks/index.js';

export const handler = defineHandler('webhooks/replay', { body: ReplayBody, cursorsOf: 'changes/list' }, async ({ params, body, positionOf }) =>
  replayWebhook(params.webhookId, await positionOf(body.cursor)),
);
