/**
 * `npm run events` (lib/cli/events.ts): writes events/<route>.json, one API Gateway HTTP API (v2) event per route, for
 * `sam local invoke -t cdk.out/StoreApi-dev.template.json <FunctionId> -e events/<route>.json`.
 *
 * They are signed with the sample key below; create it where the function will run with
 * STORE_BOOTSTRAP_API_KEY=SAMPLE_API_KEY:SAMPLE_SECURE_KEY (npm start) or `ensureApiKey`. Each
 * resource declares its routes' samples in its folder (lib/samples.ts); played in `playOrder` on a
 * fresh table they all succeed (`npm run sam -- play` does): the creates make the ids the later
 * events use, which each sample's `needs` names.
 */
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromResourceFolders } from '../resource-files.js';
import { routeByName, type RouteName } from '../routes.js';
import type { SampleRequest } from '../samples.js';
import { signBody } from '../api-keys/signature.js';
import { toApiGatewayEvent } from './dispatch.js';
import type { HttpEvent } from '../http/types.js';
import { sampleFileOf } from '../deploy/pre-traffic.js';

export const SAMPLE_API_KEY = '0123456789ABCDEF012345678';
export const SAMPLE_SECURE_KEY = '0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF';

/**
 * The samples of the API's own routes, which belong to no resource: they come first (and the
 * unknown path's last), each resource's in between, from its folder.
 */
const API_SAMPLES: readonly SampleRequest[] = [
  { route: 'health/get', url: '/api' },
  { route: 'openapi/get', url: '/api/openapi.json' },
  { route: 'docs/get', url: '/api/docs' },
];
const LAST_SAMPLES: readonly SampleRequest[] = [{ route: 'not-found/any', url: '/api/nothing-here' }];

/**
 * The order samples play in on a fresh table: each folder's in its own order (its create makes the
 * ids its later samples use), folders in the registry's order, a sample waiting until the samples it
 * `needs` have run (a product's create waits for a category's). Folders are taken in turns so that
 * a waiting one lets the next go on; a sample whose needs never come is an error naming it.
 */
export function playOrder(folders: readonly (readonly SampleRequest[])[]): SampleRequest[] {
  const queues = folders.map((folder) => [...folder]);
  const played: SampleRequest[] = [];
  const ran = new Set<string>();
  for (;;) {
    const queue = queues.find((waiting) => waiting[0] && (waiting[0].needs ?? []).every((route) => ran.has(route)));
    const next = queue?.shift();
    if (!next) break;
    played.push(next);
    ran.add(next.route);
  }
  const stuck = queues.flatMap((queue) => queue.slice(0, 1));
  if (stuck.length) throw new Error(`samples whose needs never run: ${stuck.map((sample) => `${sample.route} (needs ${(sample.needs ?? []).join(', ')})`).join('; ')}`);
  return played;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Every route's sample, from each resource's folder (lib/<module>/samples.ts), in the order they play. */
export async function loadSampleRequests(): Promise<SampleRequest[]> {
  return [...API_SAMPLES, ...playOrder(await fromResourceFolders<readonly SampleRequest[]>('samples.ts', 'samples')), ...LAST_SAMPLES];
}

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

/** Writes events/<route>.json for every sample request. */
export async function writeSampleEvents(): Promise<void> {
  await mkdir(path.join(root, 'events'), { recursive: true });
  const sampleRequests = await loadSampleRequests();
  for (const sample of sampleRequests) {
    await writeFile(path.join(root, eventFile(sample.route)), `${JSON.stringify(sampleEvent(sample), null, 2)}\n`);
  }
  console.log(`wrote ${sampleRequests.length} events to events/`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await writeSampleEvents();
