import { defineHandler } from '../../lib/http/handler.js';
import { DeliveriesQuery, listDeliveries } from '../../lib/webhooks/index.js';

export const handler = defineHandler('webhooks/deliveries', { query: DeliveriesQuery }, ({ params, query }) => listDeliveries(params.webhookId, query.limit));
