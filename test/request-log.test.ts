/**
 * The request log (lib/http/request-log.ts): one JSON line per request, with what an operator needs
 * and no secret, which is also a CloudWatch Embedded Metric Format document.
 */
import { describe, expect, it } from 'vitest';
import { get, logLines, post, superadminKey } from './support/api.js';
import { createCustomer, productInput } from './support/fixtures.js';

type Line = Record<string, any>;

const requestLines = (): Line[] => logLines.map((line) => JSON.parse(line) as Line).filter((line) => line.message === 'request');

/** The line(s) a call wrote. */
async function linesOf(call: () => Promise<unknown>): Promise<Line[]> {
  const before = requestLines().length;
  await call();
  return requestLines().slice(before);
}

const UNITS = new Set(['Seconds', 'Microseconds', 'Milliseconds', 'Bytes', 'Kilobytes', 'Megabytes', 'Gigabytes', 'Terabytes', 'Bits', 'Count', 'Bytes/Second', 'Count/Second', 'Percent', 'None']);

/** What CloudWatch's Embedded Metric Format specification requires of a document, as a list of breaches. */
function emfBreaches(doc: Line): string[] {
  const breaches: string[] = [];
  const aws = doc._aws;
  if (typeof aws !== 'object' || aws === null) return ['no _aws object'];
  if (!Number.isInteger(aws.Timestamp)) breaches.push('_aws.Timestamp is not a number of milliseconds');
  if (!Array.isArray(aws.CloudWatchMetrics) || aws.CloudWatchMetrics.length === 0) return [...breaches, 'no CloudWatchMetrics'];
  for (const directive of aws.CloudWatchMetrics) {
    if (typeof directive.Namespace !== 'string' || !directive.Namespace || directive.Namespace.length > 255) breaches.push('bad Namespace');
    for (const set of directive.Dimensions ?? []) {
      if (!Array.isArray(set) || set.length > 30) breaches.push('a dimension set is not an array of at most 30 keys');
      for (const key of set) if (typeof doc[key] !== 'string') breaches.push(`dimension ${key} is not a string member`);
    }
    if (!Array.isArray(directive.Metrics) || directive.Metrics.length > 100) breaches.push('Metrics is not an array of at most 100');
    for (const metric of directive.Metrics ?? []) {
      if (typeof doc[metric.Name] !== 'number') breaches.push(`metric ${metric.Name} has no number member`);
      if (metric.Unit !== undefined && !UNITS.has(metric.Unit)) breaches.push(`metric ${metric.Name} has unit ${metric.Unit}`);
    }
  }
  return breaches;
}

describe('the request log', () => {
  it('writes exactly one line per request, with who asked what, the answer, its time and its DynamoDB usage', async () => {
    const { apiKey } = await superadminKey();
    const [line, ...more] = await linesOf(() => get('/api/tax-rules/1'));
    expect(more).toEqual([]);
    expect(line).toMatchObject({ level: 'info', message: 'request', Route: 'tax-rules/get', method: 'GET', path: '/api/tax-rules/1', status: 200, apiKey });
    expect(line!.requestId).toEqual(expect.any(String));
    expect(line!.latencyMs).toBeGreaterThan(0);
    expect(line!.dynamodbRequests).toBeGreaterThanOrEqual(1);
    expect(line!.consumedCapacity).toBeGreaterThan(0);
  });

  it('is a valid Embedded Metric Format document, counting requests, 4xx, 5xx and latency per route', async () => {
    const [ok] = await linesOf(() => get('/api/tax-rules/1'));
    const [missing] = await linesOf(() => get('/api/tax-rules/987654'));
    const [open] = await linesOf(() => get('/api', { as: null }));
    for (const line of [ok!, missing!, open!]) expect(emfBreaches(line)).toEqual([]);
    expect(ok).toMatchObject({ Requests: 1, Status4xx: 0, Status5xx: 0 });
    expect(missing).toMatchObject({ Requests: 1, Status4xx: 1, Status5xx: 0, why: 'not-found' });
    expect(ok!.why).toBeUndefined();
    // Why a request was refused: the problem's kind and the fields it names, never their values.
    const [refused] = await linesOf(() => post('/api/products', productInput({ price: -1, title: 'Secret looking title' })));
    expect(refused).toMatchObject({ status: 400, why: 'invalid-input: price' });
    expect(JSON.stringify(refused)).not.toContain('Secret looking');
    expect(open).toMatchObject({ Route: 'health/get', status: 200 });
    expect(emfBreaches({ _aws: { Timestamp: 'now', CloudWatchMetrics: [{ Namespace: '', Metrics: [{ Name: 'Gone', Unit: 'Parsecs' }] }] } })).toHaveLength(4);
  });

  it('counts login failures, lock-outs and idempotent replays', async () => {
    const { input } = await createCustomer();
    const wrong = () => post('/api/customers/checkLogin', { email: input.email, password: 'not the password' });
    expect((await linesOf(wrong))[0]).toMatchObject({ LoginFailures: 1, LockOuts: 0 });
    for (let i = 0; i < 9; i++) await wrong();
    expect((await linesOf(wrong))[0]).toMatchObject({ status: 429, LoginFailures: 0, LockOuts: 1 });
    const body = productInput();
    const options = { headers: { 'idempotency-key': `log-${Date.now()}` } };
    expect((await linesOf(() => post('/api/products', body, options)))[0]).toMatchObject({ IdempotentReplays: 0 });
    expect((await linesOf(() => post('/api/products', body, options)))[0]).toMatchObject({ IdempotentReplays: 1 });
  });
});
