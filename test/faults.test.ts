/**
 * DynamoDB faults, injected with aws-sdk-client-mock: every other command still reaches DynamoDB
 * Local (sinon's callThrough), so the table shows that nothing was half-written.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import { GetCommand, QueryCommand, TransactWriteCommand, BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { ProvisionedThroughputExceededException, InternalServerError } from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { db } from '../lib/db/client.js';
import { Refused } from '../lib/db/errors.js';
import { put as putStep, writeAtomically } from '../lib/db/transactions.js';
import { get, logLines, post, put, superadminKey, tableSnapshot } from './support/api.js';
import { createCustomer, createProduct, customerInput, productInput } from './support/fixtures.js';

const throttled = () => new ProvisionedThroughputExceededException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 400 } });
const unavailable = () => new InternalServerError({ message: 'Internal server error', $metadata: { httpStatusCode: 500 } });
const timedOut = () => Object.assign(new Error('socket hang up'), { name: 'TimeoutError', code: 'ETIMEDOUT' });

let mock: ReturnType<typeof mockClient>;

beforeAll(async () => {
  await superadminKey();
  await get('/api/tax-rules/1'); // the key is cached: faults hit the route, not the key lookup
});

function injectFaults() {
  mock = mockClient(db());
  mock.send.callThrough();
  return mock;
}

afterEach(() => mock?.restore());

describe('DynamoDB faults', () => {
  it('answer 503 with Retry-After when a read is throttled', async () => {
    injectFaults().on(QueryCommand).rejects(throttled());
    const response = await get('/api/customers');
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(response.text).not.toMatch(/Rate exceeded|at .*\.ts/);
  });

  it('count a 5xx in the route’s and the version’s metrics at every log level: at `error`, its metrics still have a line', async () => {
    process.env.STORE_LOG_LEVEL = 'error';
    try {
      const before = logLines.length;
      injectFaults().on(GetCommand).rejects(timedOut());
      expect((await get('/api/tax-rules/1')).status).toBe(503);
      const lines = logLines.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.filter((line) => line.message === 'request')).toEqual([]);
      const [metrics, ...more] = lines.filter((line) => line.message === 'metrics');
      expect(more).toEqual([]);
      expect(metrics).toMatchObject({
        Route: 'tax-rules/get',
        Stage: 'local',
        Version: '$LATEST',
        Requests: 1,
        Status5xx: 1,
        _aws: { CloudWatchMetrics: [expect.objectContaining({ Namespace: 'StoreApi' })] },
      });
      // Only what the alarms read: no who, no path.
      expect(Object.keys(metrics!)).not.toContain('apiKey');
    } finally {
      delete process.env.STORE_LOG_LEVEL;
    }
  });

  it('answer 503 for a timeout and for an unavailable service, and log the cause by name and code', async () => {
    injectFaults().on(GetCommand).rejects(timedOut());
    expect((await get('/api/tax-rules/1')).status).toBe(503);
    const failure = logLines.map((line) => JSON.parse(line) as { message?: string; error?: { cause?: unknown } }).findLast((line) => line.message === 'request failed');
    expect(failure?.error?.cause).toEqual({ name: 'TimeoutError', code: 'ETIMEDOUT' });
    mock.restore();
    await createProduct(); // so that the list has tax rules to read in a batch
    injectFaults().on(BatchGetCommand).rejects(unavailable());
    expect((await get('/api/products')).status).toBe(503);
  });

  it('leave nothing half-written when the transaction of a create fails', async () => {
    // Ids are handed out before the transaction (a gap is fine, see tableSnapshot): make the counters exist.
    await createCustomer();
    await createProduct();
    const before = await tableSnapshot();
    injectFaults().on(TransactWriteCommand).rejects(throttled());
    expect((await post('/api/customers', customerInput())).status).toBe(503);
    expect((await post('/api/products', productInput())).status).toBe(503);
    mock.restore();
    expect(await tableSnapshot()).toEqual(before);
  });

  it('leave the record as it was when the transaction of an update fails', async () => {
    const { row } = await createCustomer();
    const before = await tableSnapshot();
    injectFaults().on(TransactWriteCommand).rejects(unavailable());
    expect((await put('/api/customers', { id: row.ID, city: 'Brest', zipcode: '29200' })).status).toBe(503);
    mock.restore();
    expect(await tableSnapshot()).toEqual(before);
  });

  it('let a retry after a 503 create succeed once, with its Idempotency-Key', async () => {
    const input = customerInput();
    const options = { headers: { 'idempotency-key': `fault-${Date.now()}` } };
    injectFaults().on(TransactWriteCommand).rejectsOnce(throttled());
    expect((await post('/api/customers', input, options)).status).toBe(503);
    expect((await post('/api/customers', input, options)).status).toBe(201);
    expect((await get(`/api/customers?email=${encodeURIComponent(input.email)}`)).body).toHaveLength(1);
  });

  it('are retried by the SDK a bounded number of times, with bounded timeouts', async () => {
    const config = db().config;
    expect(await config.maxAttempts()).toBe(3);
  });

  it('become a 500 without details for anything else', async () => {
    injectFaults().on(GetCommand).rejects(new TypeError('secret internals'));
    const response = await get('/api/tax-rules/2');
    expect(response.status).toBe(500);
    expect(response.text).not.toContain('secret internals');
  });
});

describe('the server secret out of reach', () => {
  it('makes the routes that need it answer 503 + Retry-After, and is asked for again by the next request', async () => {
    const secrets = mockClient(SecretsManagerClient);
    secrets.on(GetSecretValueCommand).rejects(unavailable());
    const own = process.env.STORE_SECRET;
    delete process.env.STORE_SECRET;
    process.env.STORE_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:store-api-server';
    try {
      const list = await get('/api/tax-rules?limit=1');
      expect(list.status).toBe(503);
      expect(list.headers['retry-after']).toBe('1');
      expect((await get('/api/tax-rules/1')).status).toBe(200); // a read by id signs nothing
      expect((await get('/api/tax-rules?limit=1')).status).toBe(503);
      expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
    } finally {
      delete process.env.STORE_SECRET_ARN;
      if (own !== undefined) process.env.STORE_SECRET = own;
      secrets.restore();
    }
  });
});

describe('partial batch reads', () => {
  it('ask again for the keys DynamoDB leaves unprocessed, so that a throttled product read still finds the product', async () => {
    const { row } = await createProduct();
    const leaveAllUnprocessed = (request: { RequestItems: Record<string, unknown> }) => ({ Responses: {}, UnprocessedKeys: request.RequestItems });
    injectFaults().on(BatchGetCommand).callsFakeOnce(leaveAllUnprocessed);
    const response = await get(`/api/products/${row.ID}`);
    expect(response.status).toBe(200);
    expect(mock.commandCalls(BatchGetCommand).length).toBeGreaterThanOrEqual(2);
  });
});

describe('writes DynamoDB refuses', () => {
  it('end as Refused (never retried as a fault) and write nothing', async () => {
    const before = await tableSnapshot();
    const tooLarge = putStep({ pk: 'REFUSED', sk: 'ITEM', text: 'x'.repeat(410 * 1024) });
    await expect(writeAtomically([tooLarge])).rejects.toThrow(Refused);
    expect(await tableSnapshot()).toEqual(before);
  });
});
