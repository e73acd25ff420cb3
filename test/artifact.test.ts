/**
 * The deployed code, tested: the app is synthesized with its bundled assets, and every function's
 * asset is loaded in a fresh Node process with the template's Handler and Environment (deploy-time
 * values supplied as `sam local invoke --env-vars` supplies them, infra/local-env.ts), invoked with
 * its `events/` sample and a Lambda-like context against DynamoDB Local, and must answer its route's
 * success status. The samples are played in order on this file's table: the creates make the ids
 * the later events use.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureApiKey } from '../lib/api-keys/index.js';
import { functionEnvironments } from '../infra/local-env.js';
import { eventFile, sampleRequests, SAMPLE_API_KEY, SAMPLE_SECURE_KEY } from '../infra/sample-events.js';
import { runBuilt, synthesizeFunctions, type BuiltFunction } from './support/built-functions.js';

const outdir = mkdtempSync(path.join(tmpdir(), 'store-api-artifact-'));
let built: BuiltFunction[];
let environments: Record<string, Record<string, string>>;

beforeAll(async () => {
  const { functions, template } = synthesizeFunctions(outdir);
  built = functions;
  environments = functionEnvironments(template, {
    STORE_TABLE_NAME: process.env.STORE_TABLE_NAME!,
    STORE_SECRET: 'artifact test secret',
    DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT!,
  });
  await ensureApiKey(SAMPLE_API_KEY, SAMPLE_SECURE_KEY, 'sample events');
}, 120_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the synthesized functions', () => {
  it('declare, for each function, only plain values or the ones an --env-vars file supplies', () => {
    for (const fn of built) {
      const secret = fn.route.usesServerSecret ? ['STORE_SECRET', 'STORE_SECRET_ARN'] : [];
      const retention = fn.route.dynamodb.includes('PutItem') ? ['STORE_CHANGE_RETENTION_DAYS'] : [];
      expect(Object.keys(environments[fn.logicalId]!).sort(), fn.route.name).toEqual(['DYNAMODB_ENDPOINT', ...retention, ...secret, 'STORE_TABLE_NAME']);
    }
  });

  it("answer each sample event with the route's success status, each loaded fresh as Lambda loads it", async () => {
    for (const sample of sampleRequests) {
      const fn = built.find((f) => f.route.name === sample.route)!;
      const invocation = await runBuilt(fn.file, fn.handler.split('.')[1]!, environments[fn.logicalId]!, path.resolve(eventFile(sample.route)));
      expect(invocation.response?.statusCode, `${sample.route}: ${invocation.response?.body}`).toBe(fn.route.status);
    }
  }, 120_000);
});
