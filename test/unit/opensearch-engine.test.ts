/**
 * The OpenSearch engine as a deployment meets OpenSearch Serverless (lib/opensearch/engine.ts),
 * against the stand-in of test/support: a throttled or failing collection is asked again within the
 * work's deadline, one that does not answer ends with the deadline, a refused signature is not
 * retried, and the credentials are the role's from wherever Lambda hands them (its environment, or
 * its local credentials endpoint).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IndexUnavailable, OutOfTime } from '../../lib/db/errors.js';
import type { SearchQuery } from '../../lib/db/lists/query.js';
import { withinScope } from '../../lib/db/scope.js';
import { toProblem } from '../../lib/http/errors.js';
import { OpenSearchEngine } from '../../lib/opensearch/engine.js';
import { type OpenSearchStandIn, startOpenSearchStandIn } from '../support/opensearch-stand-in.js';

const credentials = { accessKeyId: 'AKIDSTANDIN', secretAccessKey: 'stand-in-secret' };
const everything: SearchQuery = { kind: 'things', locale: 'en_US', fallback: 'en_US', filters: [], order: { field: 'id', text: false, reverse: false }, limit: 10, offset: 0 };
const document = { id: 7, values: {}, texts: { ref: 'chair' } };

let standIn: OpenSearchStandIn;
beforeEach(async () => {
  standIn = await startOpenSearchStandIn(credentials);
});
afterEach(() => standIn.close());

describe('the OpenSearch engine under faults of the collection', () => {
  it('asks again when the collection throttles (429) or fails (5xx), and answers', async () => {
    const engine = new OpenSearchEngine(standIn.url, { credentials });
    await engine.write([{ kind: 'things', put: [document], remove: [] }], { n: 1, i: 0 });
    standIn.log.length = 0;
    standIn.fail(429, 2);
    standIn.fail(503, 1);
    expect((await engine.query(everything)).ids).toEqual([7]);
    expect(standIn.log).toEqual(['POST /store-things/_search 429', 'POST /store-things/_search 429', 'POST /store-things/_search 503', 'POST /store-things/_search 200']);
  });

  it("gives up after four attempts with a 503 of its own kind, the index's", async () => {
    const engine = new OpenSearchEngine(standIn.url, { credentials });
    standIn.fail(500, 4);
    const error = await engine.query(everything).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(IndexUnavailable);
    expect(standIn.log).toHaveLength(4);
    const problem = toProblem(error);
    expect([problem.status, problem.type]).toEqual([503, '/api/docs#problem-index-unavailable']);
  });

  it('ends a request the collection does not answer with the work’s deadline (a list’s budget), not later', async () => {
    const engine = new OpenSearchEngine(standIn.url, { credentials });
    standIn.stall(1);
    const started = Date.now();
    const error = await withinScope({ deadline: AbortSignal.timeout(400) }, () => engine.query(everything)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutOfTime);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(standIn.log).toEqual(['POST /store-things/_search stalled']);
  });

  it('does not ask again when the signature is refused (another secret)', async () => {
    const engine = new OpenSearchEngine(standIn.url, { credentials: { ...credentials, secretAccessKey: 'not-the-secret' } });
    await expect(engine.query(everything)).rejects.toThrow(/refused a query \(403\)/);
    expect(standIn.log).toEqual(['POST /store-things/_search 403']);
  });
});

describe("the OpenSearch engine's credentials", () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_CONTAINER_CREDENTIALS_FULL_URI', 'AWS_CONTAINER_AUTHORIZATION_TOKEN']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it("are the role's from the environment, as Lambda hands them by default", async () => {
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey });
    const engine = new OpenSearchEngine(standIn.url);
    await engine.write([{ kind: 'things', put: [document], remove: [] }], undefined);
    expect((await engine.query(everything)).ids).toEqual([7]);
  });

  it("are the local credentials endpoint's when the environment has none (SnapStart), asked once while they last", async () => {
    const asked: string[] = [];
    const endpoint = createServer((request, response) => {
      asked.push(String(request.headers.authorization));
      const expiration = new Date(Date.now() + 3_600_000).toISOString();
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ AccessKeyId: credentials.accessKeyId, SecretAccessKey: credentials.secretAccessKey, Token: 'session', Expiration: expiration }));
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    try {
      delete process.env.AWS_ACCESS_KEY_ID;
      delete process.env.AWS_SECRET_ACCESS_KEY;
      process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/2018-06-01/credentials`;
      process.env.AWS_CONTAINER_AUTHORIZATION_TOKEN = 'container-token';
      const engine = new OpenSearchEngine(standIn.url);
      await engine.write([{ kind: 'things', put: [document], remove: [] }], undefined);
      expect((await engine.query(everything)).ids).toEqual([7]);
      expect(asked).toEqual(['container-token']);
    } finally {
      endpoint.close();
    }
  });
});
