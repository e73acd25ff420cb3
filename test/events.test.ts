import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeByName, routes } from '../lib/routes.js';
import { ensureApiKey } from '../lib/api-keys/index.js';
import { lambdaContext, loadHandler } from '../lib/local/dispatch.js';
import { eventFile, sampleEvent, sampleRequests, SAMPLE_API_KEY, SAMPLE_SECURE_KEY } from '../infra/sample-events.js';

describe('events/ samples', () => {
  beforeAll(() => ensureApiKey(SAMPLE_API_KEY, SAMPLE_SECURE_KEY, 'sample events'));

  it('cover every route of the route table', () => {
    expect(sampleRequests.map((s) => s.route).sort()).toEqual(routes.map((r) => r.name).sort());
  });

  it('are up to date with the route table (npm run events)', async () => {
    for (const sample of sampleRequests) {
      expect(JSON.parse(await readFile(eventFile(sample.route), 'utf8')), eventFile(sample.route)).toEqual(sampleEvent(sample));
    }
  });

  it("answer each route's success status from the route table when played in order against DynamoDB Local", async () => {
    for (const sample of sampleRequests) {
      const route = routeByName(sample.route);
      const event = JSON.parse(await readFile(eventFile(sample.route), 'utf8'));
      const handler = await loadHandler(route);
      const response = await handler(event, lambdaContext(route.name));
      expect(response.statusCode, `${sample.route}: ${response.body}`).toBe(route.status);
    }
  });
});
