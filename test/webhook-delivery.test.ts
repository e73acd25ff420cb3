/**
 * One delivery attempt, against a real HTTP receiver on 127.0.0.1 started here (loopback allowed,
 * as `npm start` allows it): signed as Standard Webhooks says, answered by status, never following
 * a redirect, within its timeout.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { deliver } from '../lib/webhooks/deliver.js';
import { newWebhookSecret } from '../lib/webhooks/secret.js';
import { freePort } from '../lib/local/dynamodb-local.js';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let base: string;
const received: Received[] = [];
/** What the receiver answers next, by path. */
const answers = new Map<string, (response: import('node:http').ServerResponse) => void>();

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body });
      (answers.get(request.url ?? '') ?? ((r) => r.writeHead(204).end()))(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const local = { allowLoopback: true };
const body = JSON.stringify({ ID: 'change-1', RESOURCE: 'product', TYPE: 'updated' });

describe('a delivery attempt', () => {
  it('POSTs the body with Standard Webhooks headers that verify with the secret, and a 2xx delivers it', async () => {
    const secret = newWebhookSecret();
    const attempt = await deliver(`${base}/ok`, secret, 'change-1', body, local);
    expect(attempt).toMatchObject({ status: 204, error: '', delivered: true });
    const got = received.findLast((r) => r.path === '/ok')!;
    expect(got.body).toBe(body);
    expect(got.headers['webhook-id']).toBe('change-1');
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toEqual(JSON.parse(body));
  });

  it('does not follow a redirect, even to the metadata service: one request, not delivered', async () => {
    answers.set('/moved', (r) => r.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end());
    const before = received.length;
    const attempt = await deliver(`${base}/moved`, newWebhookSecret(), 'change-2', body, local);
    expect(attempt).toMatchObject({ status: 302, error: 'redirect not followed', delivered: false });
    expect(received.length - before).toBe(1);
  });

  it('counts any other status, a timeout and a refused connection as failures, each named', async () => {
    answers.set('/busy', (r) => r.writeHead(503).end());
    answers.set('/slow', (r) => setTimeout(() => r.writeHead(200).end(), 1_000));
    expect(await deliver(`${base}/busy`, newWebhookSecret(), 'c', body, local)).toMatchObject({ status: 503, error: 'status', delivered: false });
    expect(await deliver(`${base}/slow`, newWebhookSecret(), 'c', body, { ...local, timeoutMs: 200 })).toMatchObject({ status: 0, error: 'timeout', delivered: false });
    const closed = await freePort();
    expect(await deliver(`http://127.0.0.1:${closed}/`, newWebhookSecret(), 'c', body, local)).toMatchObject({ status: 0, error: 'refused' });
  });

  it('sends nothing to an address not allowed, checked at the attempt', async () => {
    const before = received.length;
    expect(await deliver(base.replace('127.0.0.1', '127.0.0.2'), newWebhookSecret(), 'c', body, local)).toMatchObject({ status: 0, error: 'address not allowed' });
    expect(await deliver(`${base}/ok`, newWebhookSecret(), 'c', body)).toMatchObject({ status: 0, error: 'url must be https' });
    expect(received.length).toBe(before);
  });
});
