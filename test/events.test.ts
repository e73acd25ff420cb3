import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeByName, routes } from '../lib/routes.js';
import { ensureApiKey } from '../lib/api-keys/index.js';
import { lambdaContext, loadHandler } from '../lib/local/dispatch.js';
import { eventFile, sampleEvent, loadSampleRequests, SAMPLE_API_KEY, SAMPLE_SECURE_KEY } from '../lib/local/sample-events.js';
import { actionsUsedBy } from './support/dynamodb-actions.js';

/** Every route's sample, from its resource's folder, in the order they play. */
const sampleRequests = await loadSampleRequests();

describe('events/ samples', () => {
  beforeAll(async () => {
    await ensureApiKey(SAMPLE_API_KEY, SAMPLE_SECURE_KEY);
  });

  it('cover every route of the route table', () => {
    expect(sampleRequests.map((s) => s.route).sort()).toEqual(routes.map((r) => r.name).sort());
  });

  it('are up to date with the route table (npm run events)', async () => {
    for (const sample of sampleRequests) {
      expect(JSON.parse(await readFile(eventFile(sample.route), 'utf8')), eventFile(sample.route)).toEqual(sampleEvent(sample));
    }
  });

  it("answer each route's success status from the route table, using only the DynamoDB actions the route declares", async () => {
    process.env.STORE_API_KEY_CACHE_SECONDS = '0'; // every invocation looks its key up, as a cold Lambda does
    for (const sample of sampleRequests) {
      const route = routeByName(sample.route);
      const event = JSON.parse(await readFile(eventFile(sample.route), 'utf8'));
      const handler = await loadHandler(route);
      let response: Awaited<ReturnType<typeof handler>> | undefined;
      const used = await actionsUsedBy(async () => {
        response = await handler(event, lambdaContext(route.name));
      });
      expect(response?.statusCode, `${sample.route}: ${response?.body}`).toBe(route.status);
      expect(route.deployment.dynamodb, sample.route).toEqual(expect.arrayContaining(used));
    }
  });
});
