/**
 * The sample requests of webhook subscriptions (lib/samples.ts), in the order they run: the create makes subscription 1 (to an address the policy allows), which the later samples read, change and delete.
 */
import { defineSamples } from '../samples.js';

export const samples = defineSamples([
  {
    route: 'webhooks/create',
    url: '/api/webhooks',
    body: {
      url: 'https://93.184.215.14/store-hooks',
      events: ['product.*', 'customer.created'],
      description: 'Sample receiver',
    },
  },
  {
    route: 'webhooks/list',
    url: '/api/webhooks',
  },
  {
    route: 'webhooks/get',
    url: '/api/webhooks/1',
    params: {
      webhookId: '1',
    },
    needs: ['webhooks/create'],
  },
  {
    route: 'webhooks/update',
    url: '/api/webhooks/1',
    params: {
      webhookId: '1',
    },
    body: {
      events: ['*'],
    },
    needs: ['webhooks/create'],
  },
  {
    route: 'webhooks/deliveries',
    url: '/api/webhooks/1/deliveries',
    params: {
      webhookId: '1',
    },
    needs: ['webhooks/create'],
  },
  {
    route: 'webhooks/replay',
    url: '/api/webhooks/1/replay',
    params: {
      webhookId: '1',
    },
    body: {
      cursor: 'now',
    },
    needs: ['webhooks/create'],
  },
  {
    route: 'webhooks/delete',
    url: '/api/webhooks/1',
    params: {
      webhookId: '1',
    },
    needs: ['webhooks/create'],
  },
]);
