/** npm start's console for people (lib/local/console.ts): what each kind of log line becomes. */
import { describe, expect, it } from 'vitest';
import { consoleWriter } from '../../lib/local/console.js';

function console(start = '2026-11-27T06:41:02.123Z') {
  const lines: string[] = [];
  let clock = Date.parse(start);
  const writer = consoleWriter({ write: (line) => lines.push(line), color: false, now: () => new Date(clock) });
  return { lines, writer, advance: (ms: number) => (clock += ms) };
}

const request = {
  Route: 'products/list',
  requestId: 'r-1',
  method: 'GET',
  path: '/api/products',
  status: 200,
  latencyMs: 12.34,
  dynamodbRequests: 2,
  consumedCapacity: 2,
  apiKey: 'ABCDEF0123456789ABCDEF012',
  keyLabel: 'back office',
  Requests: 1,
  _aws: { Timestamp: 1 },
};

describe('the console for people', () => {
  it('writes a request as one short line: time, method, path, status, latency, route, key label', () => {
    const { lines, writer } = console();
    writer('info', 'request', request);
    expect(lines).toEqual(['06:41:02  GET    /api/products  200  12.3 ms  products/list  key "back office"']);
    expect(lines[0]!.length).toBeLessThan(100);
  });

  it('says why a request was refused: its problem’s kind and the fields it names, never a value', () => {
    const { lines, writer } = console();
    writer('info', 'request', { ...request, method: 'POST', status: 400, why: 'invalid-input: price, title' });
    expect(lines).toEqual(['06:41:02  POST   /api/products  400  invalid-input: price, title  12.3 ms  products/list  key "back office"']);
  });

  it('marks warnings and errors, with their fields but no metrics block', () => {
    const { lines, writer } = console();
    writer('error', 'request failed', { route: 'products/get', error: { name: 'TypeError' }, _aws: {} });
    writer('warn', 'webhook disabled', { webhookId: 3, reason: 'gone', Disabled: 1 });
    expect(lines).toEqual(['06:41:02  ERROR  request failed  route=products/get error={"name":"TypeError"}', '06:41:02  WARN  webhook disabled  webhookId=3 reason=gone Disabled=1']);
  });

  it('sums the background work up, at most one line every 10 s, and nothing when it did nothing', () => {
    const { lines, writer, advance } = console();
    writer('info', 'changes placed', { Placed: 3, _aws: {} });
    expect(lines).toEqual(['06:41:02  background: 3 changes placed in the feed']);
    advance(2_000);
    writer('info', 'changes placed', { Placed: 2 });
    writer('info', 'webhooks round', { DueJobs: 0 });
    advance(3_000);
    writer('info', 'changes placed', { Placed: 1 });
    expect(lines).toHaveLength(1);
    advance(5_000);
    writer('info', 'webhooks round', { DueJobs: 1 });
    expect(lines.slice(1)).toEqual(['06:41:12  background: 3 changes placed in the feed, 1 webhook job due']);
    advance(20_000);
    writer('info', 'webhooks round', { DueJobs: 0 });
    expect(lines).toHaveLength(2);
  });

  it('sums webhook deliveries made with the rest of the background work; a failed one is a warning of its own', () => {
    const { lines, writer, advance } = console();
    writer('info', 'changes placed', { Placed: 1 });
    for (let n = 0; n < 34; n++) writer('info', 'delivery', { webhookId: 1, changeId: `c${n}`, attempt: 1, status: 200, latencyMs: 3, Deliveries: 1 });
    writer('warn', 'delivery', { webhookId: 2, changeId: 'c9', attempt: 1, status: 500, latencyMs: 4, Deliveries: 1, Failures: 1 });
    advance(10_000);
    writer('info', 'changes placed', { Placed: 0 });
    expect(lines).toEqual([
      '06:41:02  background: 1 change placed in the feed',
      '06:41:02  WARN  delivery  webhookId=2 changeId=c9 attempt=1 status=500 latencyMs=4 Deliveries=1 Failures=1',
      '06:41:12  background: 34 webhook deliveries made',
    ]);
  });
});
