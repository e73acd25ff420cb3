/**
 * `npm run events` (lib/cli/events.ts): writes events/<route>.json, one API Gateway HTTP API (v2) event per route, for
 * `sam local invoke -t cdk.out/StoreApi-dev.template.json <FunctionId> -e events/<route>.json`.
 *
 * They are signed with the sample key below; create it where the function will run with
 * STORE_BOOTSTRAP_API_KEY=SAMPLE_API_KEY:SAMPLE_SECURE_KEY (npm start) or `ensureApiKey`. Played in
 * this order on a fresh table they all succeed (`npm run sam -- play` does): the creates make the ids
 * the later events use, which each sample's `needs` names.
 */
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { routeByName, type RouteName } from '../routes.js';
import { signBody } from '../api-keys/signature.js';
import { toApiGatewayEvent } from './dispatch.js';
import type { HttpEvent } from '../http/types.js';
import { sampleFileOf } from '../deploy/pre-traffic.js';

export const SAMPLE_API_KEY = '0123456789ABCDEF012345678';
export const SAMPLE_SECURE_KEY = '0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF';

interface SampleRequest {
  route: RouteName;
  url: string;
  params?: Record<string, string>;
  body?: unknown;
  /** The samples that must have run before on the same table: they make what this one reads or changes. */
  needs?: RouteName[];
}

export const sampleRequests: SampleRequest[] = [
  { route: 'health/get', url: '/api' },
  { route: 'openapi/get', url: '/api/openapi.json' },
  { route: 'docs/get', url: '/api/docs' },
  { route: 'tax-rules/list', url: '/api/tax-rules?limit=5' },
  { route: 'tax-rules/get', url: '/api/tax-rules/1', params: { entityId: '1' } },
  { route: 'tax-rules/create', url: '/api/tax-rules', body: { country: [64], tax: [2, 1], i18n: [{ locale: 'en_US', title: 'Sample rule' }] } },
  { route: 'tax-rules/update', url: '/api/tax-rules', body: { id: 3, i18n: [{ locale: 'fr_FR', title: 'Règle exemple' }] }, needs: ['tax-rules/create'] },
  {
    route: 'customers/create',
    url: '/api/customers',
    body: {
      title: 1,
      firstname: 'Jeanne',
      lastname: 'Martin',
      email: 'jeanne@example.com',
      password: 'sample password',
      lang_id: 1,
      country: 64,
      zipcode: '75001',
      city: 'Paris',
      address1: '1 rue de Rivoli',
    },
  },
  { route: 'customers/list', url: '/api/customers?order=lastname' },
  {
    route: 'customers/batch',
    url: '/api/customers/batch',
    body: {
      rows: [
        {
          op: 'upsert',
          title: 1,
          firstname: 'Paul',
          lastname: 'Durand',
          email: 'paul@example.com',
          password: 'sample password',
          lang_id: 1,
          country: 64,
          zipcode: '75002',
          city: 'Paris',
          address1: '2 rue de Rivoli',
        },
      ],
    },
  },
  { route: 'customers/get', url: '/api/customers/1', params: { entityId: '1' }, needs: ['customers/create'] },
  { route: 'customers/update', url: '/api/customers', body: { id: 1, city: 'Lyon', zipcode: '69001' }, needs: ['customers/create'] },
  { route: 'customers/check-login', url: '/api/customers/checkLogin', body: { email: 'jeanne@example.com', password: 'sample password' }, needs: ['customers/create'] },
  { route: 'categories/create', url: '/api/categories', body: { title: 'Sample category', locale: 'en_US', visible: 1 } },
  { route: 'categories/list', url: '/api/categories?parent=0' },
  { route: 'categories/batch', url: '/api/categories/batch', body: { rows: [{ op: 'create', title: 'Batch category', locale: 'en_US' }] } },
  { route: 'categories/get', url: '/api/categories/1', params: { entityId: '1' }, needs: ['categories/create'] },
  { route: 'categories/update', url: '/api/categories', body: { id: 1, locale: 'fr_FR', title: 'Catégorie exemple' }, needs: ['categories/create'] },
  {
    route: 'products/create',
    url: '/api/products',
    body: { ref: 'SAMPLE-1', default_category: 1, price: '19.99', currency: 1, tax_rule: 3, locale: 'en_US', title: 'Sample product' },
    needs: ['tax-rules/create', 'categories/create'],
  },
  { route: 'products/list', url: '/api/products?visible=*' },
  {
    route: 'products/batch',
    url: '/api/products/batch',
    body: { rows: [{ op: 'upsert', ref: 'SAMPLE-2', default_category: 0, price: '5', currency: 1, tax_rule: 1, locale: 'en_US', title: 'Made or updated by a batch' }] },
  },
  { route: 'products/get', url: '/api/products/1', params: { productId: '1' }, needs: ['products/create'] },
  { route: 'products/update', url: '/api/products/1', params: { productId: '1' }, body: { price: 24.5, visible: 1 }, needs: ['products/create'] },
  { route: 'products/delete', url: '/api/products/1', params: { productId: '1' }, needs: ['products/create'] },
  { route: 'categories/delete', url: '/api/categories/1', params: { entityId: '1' }, needs: ['categories/create', 'products/delete'] },
  { route: 'customers/delete', url: '/api/customers/1', params: { entityId: '1' }, needs: ['customers/create'] },
  { route: 'tax-rules/delete', url: '/api/tax-rules/3', params: { entityId: '3' }, needs: ['tax-rules/create', 'products/delete'] },
  { route: 'changes/list', url: '/api/changes?limit=5', needs: ['tax-rules/create'] },
  { route: 'webhooks/create', url: '/api/webhooks', body: { url: 'https://93.184.215.14/store-hooks', events: ['product.*', 'customer.created'], description: 'Sample receiver' } },
  { route: 'webhooks/list', url: '/api/webhooks' },
  { route: 'webhooks/get', url: '/api/webhooks/1', params: { webhookId: '1' }, needs: ['webhooks/create'] },
  { route: 'webhooks/update', url: '/api/webhooks/1', params: { webhookId: '1' }, body: { events: ['*'] }, needs: ['webhooks/create'] },
  { route: 'webhooks/deliveries', url: '/api/webhooks/1/deliveries', params: { webhookId: '1' }, needs: ['webhooks/create'] },
  { route: 'webhooks/replay', url: '/api/webhooks/1/replay', params: { webhookId: '1' }, body: { cursor: 'now' }, needs: ['webhooks/create'] },
  { route: 'webhooks/delete', url: '/api/webhooks/1', params: { webhookId: '1' }, needs: ['webhooks/create'] },
  { route: 'title/list', url: '/api/title?lang=fr_FR' },
  { route: 'title/get', url: '/api/title/1', params: { entityId: '1' } },
  { route: 'countries/list', url: '/api/countries?limit=5' },
  { route: 'countries/get', url: '/api/countries/64', params: { entityId: '64' } },
  { route: 'currencies/list', url: '/api/currencies' },
  { route: 'currencies/get', url: '/api/currencies/1', params: { entityId: '1' } },
  { route: 'languages/list', url: '/api/languages' },
  { route: 'languages/get', url: '/api/languages/2', params: { entityId: '2' } },
  { route: 'taxes/list', url: '/api/taxes' },
  { route: 'taxes/get', url: '/api/taxes/1', params: { entityId: '1' } },
  { route: 'not-found/any', url: '/api/nothing-here' },
];

export const eventFile = (route: RouteName) => `events/${sampleFileOf(route)}`;

/** The signed event of a sample request, with fixed request ids and times so the files are stable. */
export function sampleEvent(sample: SampleRequest): HttpEvent {
  const route = routeByName(sample.route);
  const raw = sample.body === undefined ? '' : JSON.stringify(sample.body);
  const signed = route.permission ? `${sample.url}${sample.url.includes('?') ? '&' : '?'}sign=${signBody(SAMPLE_SECURE_KEY, raw)}` : sample.url;
  const event = toApiGatewayEvent(
    {
      method: route.method === 'ANY' ? 'GET' : route.method,
      url: signed,
      headers: { authorization: `Token ${SAMPLE_API_KEY}`, ...(raw ? { 'content-type': 'application/json' } : {}), 'user-agent': 'sample-events' },
      body: raw,
    },
    route,
    sample.params ?? {},
  );
  event.requestContext.requestId = `sample-${sample.route.replace('/', '-')}`;
  event.requestContext.time = '22/Nov/2026:00:00:00 +0000';
  event.requestContext.timeEpoch = Date.UTC(2026, 10, 22);
  return event;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Writes events/<route>.json for every sample request. */
export async function writeSampleEvents(): Promise<void> {
  await mkdir(path.join(root, 'events'), { recursive: true });
  for (const sample of sampleRequests) {
    await writeFile(path.join(root, eventFile(sample.route)), `${JSON.stringify(sampleEvent(sample), null, 2)}\n`);
  }
  console.log(`wrote ${sampleRequests.length} events to events/`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await writeSampleEvents();
