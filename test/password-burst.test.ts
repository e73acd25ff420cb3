/**
 * The local server under a burst of password checks (issues 19, 31): on Lambda each container takes
 * one request at a time; locally, the routes that hash passwords take at most 2 at once
 * (STORE_LOCAL_HASHING_CONCURRENCY), the others waiting their turn, or refused at once when their
 * turn would come too late. Read from the request log: each line says when its handler ended and
 * how long it ran.
 */
import { describe, expect, it } from 'vitest';
import { REQUEST_BUDGET_MS } from '../lib/http/budget.js';
import { routeByName } from '../lib/routes.js';
import { asLambdaReturns } from '../lib/local/dispatch.js';
import { get, logLines, post } from './support/api.js';
import { uniqueEmail } from './support/fixtures.js';

interface Run {
  start: number;
  end: number;
}

/** The most handler runs of a route going on at one moment, from the request log (1 ms resolution). */
function mostAtOnce(route: string, since: number): number {
  const runs: Run[] = logLines
    .map((line) => JSON.parse(line) as { Route?: string; time?: string; latencyMs?: number })
    .filter((line) => line.Route === route && line.time !== undefined && Date.parse(line.time) >= since)
    .map((line) => ({ end: Date.parse(line.time!), start: Date.parse(line.time!) - line.latencyMs! }));
  // A sweep over starts and ends; a run that starts as another ends took its slot (2 ms of rounding).
  const events = runs
    .flatMap((run) => [
      { at: run.start, change: 1 },
      { at: run.end - 2, change: -1 },
    ])
    .sort((a, b) => a.at - b.at || a.change - b.change);
  let running = 0;
  let most = 0;
  for (const event of events) most = Math.max(most, (running += event.change));
  return most;
}

describe('a burst of checkLogins on the local server', () => {
  it('runs at most 2 hashing requests at once, within their budgets, while other routes answer', async () => {
    const since = Date.now();
    const burst = Array.from({ length: 12 }, () => post('/api/customers/checkLogin', { email: uniqueEmail('nobody'), password: 'wrong password' }));
    const other = await get('/api/tax-rules/1');
    const answers = await Promise.all(burst);
    expect(other.status).toBe(200);
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(404));
    expect(mostAtOnce('customers/check-login', since)).toBe(2);
  });

  it('refuses at once, with 503 + Retry-After, the checks of a burst of 120 that could not be answered within their budget', async () => {
    const sent = Date.now();
    const burst = Array.from({ length: 120 }, () =>
      post('/api/customers/checkLogin', { email: uniqueEmail('nobody'), password: 'wrong password' }).then((answer) => ({ answer, ms: Date.now() - sent })),
    );
    const health = await get('/api', { as: null });
    const healthMs = Date.now() - sent;
    const answers = await Promise.all(burst);
    expect(health.status).toBe(200);
    expect(healthMs).toBeLessThan(2_000);

    const refused = answers.filter(({ answer }) => answer.status === 503);
    const checked = answers.filter(({ answer }) => answer.status === 404);
    expect(refused.length + checked.length).toBe(120);
    expect(checked.length).toBeGreaterThan(2);
    expect(refused.length).toBeGreaterThan(0);
    for (const { answer } of refused) expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Refused as they arrive (the event loop is busy hashing, so not in 0 ms), and nothing after the budget.
    const refusedMs = refused.map(({ ms }) => ms).sort((a, b) => a - b);
    expect(refusedMs[Math.floor(refusedMs.length / 2)]).toBeLessThan(1_500);
    expect(Math.max(...answers.map(({ ms }) => ms))).toBeLessThan(REQUEST_BUDGET_MS + 1_000);
  }, 180_000);

  it('takes them all at once when told to, as 12 Lambda containers would', async () => {
    process.env.STORE_LOCAL_HASHING_CONCURRENCY = '12';
    try {
      const since = Date.now();
      await Promise.all(Array.from({ length: 12 }, () => post('/api/customers/checkLogin', { email: uniqueEmail('nobody'), password: 'wrong password' })));
      expect(mostAtOnce('customers/check-login', since)).toBeGreaterThan(2);
    } finally {
      delete process.env.STORE_LOCAL_HASHING_CONCURRENCY;
    }
  });
});

describe('an answer larger than Lambda returns', () => {
  it('is a bare 500 locally, as API Gateway gives it, and a smaller one passes as it is', () => {
    const route = routeByName('products/list');
    const answer = (bytes: number) => ({ statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: `"${'x'.repeat(bytes)}"` });
    const small = answer(1024);
    expect(asLambdaReturns(small, route)).toBe(small);
    const large = asLambdaReturns(answer(6 * 1024 * 1024), route);
    expect(large.statusCode).toBe(500);
    expect(JSON.parse(large.body!)).toMatchObject({ status: 500, detail: 'internal error' });
  });
});
