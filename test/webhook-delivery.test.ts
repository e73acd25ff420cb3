/**
 * One delivery attempt, against a real HTTP receiver on 127.0.0.1 started here (loopback allowed,
 * as `npm start` allows it): signed as Standard Webhooks says, answered by status, never following
 * a redirect, within its timeout.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { deliver } from '../lib/webhooks/deliver.js';
import { newWebhookSecret } from '../lib/webhooks/secret.js';
import { freePort } from '../lib/local/dynamodb-local.js';
import { useReceiver } from './support/receiver.js';

const receiver = useReceiver();

const local = { allowLoopback: true };
const body = JSON.stringify({ ID: 'change-1', RESOURCE: 'product', TYPE: 'updated' });

describe('a delivery attempt', () => {
  it('POSTs the body with Standard Webhooks headers that verify with the secret, and a 2xx delivers it', async () => {
    const secret = newWebhookSecret();
    const attempt = await deliver(`${receiver.base}/ok`, secret, 'change-1', body, local);
    expect(attempt).toMatchObject({ status: 204, error: '', delivered: true });
    const got = receiver.at('/ok').at(-1)!;
    expect(got.body).toBe(body);
    expect(got.headers['webhook-id']).toBe('change-1');
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toEqual(JSON.parse(body));
  });

  it('does not follow a redirect, even to the metadata service: one request, not delivered', async () => {
    receiver.answer('/moved', (r) => r.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end());
    const before = receiver.received.length;
    const attempt = await deliver(`${receiver.base}/moved`, newWebhookSecret(), 'change-2', body, local);
    expect(attempt).toMatchObject({ status: 302, error: 'redirect not followed', delivered: false });
    expect(receiver.received.length - before).toBe(1);
  });

  it('counts any other status, a timeout and a refused connection as failures, each named', async () => {
    receiver.answer('/busy', (r) => r.writeHead(503).end());
    receiver.answer('/slow', (r) => setTimeout(() => r.writeHead(200).end(), 1_000));
    expect(await deliver(`${receiver.base}/busy`, newWebhookSecret(), 'c', body, local)).toMatchObject({ status: 503, error: 'status', delivered: false });
    expect(await deliver(`${receiver.base}/slow`, newWebhookSecret(), 'c', body, { ...local, timeoutMs: 200 })).toMatchObject({ status: 0, error: 'timeout', delivered: false });
    const closed = await freePort();
    expect(await deliver(`http://127.0.0.1:${closed}/`, newWebhookSecret(), 'c', body, local)).toMatchObject({ status: 0, error: 'refused' });
  });

  it('sends nothing to an address not allowed, checked at the attempt', async () => {
    const before = receiver.received.length;
    expect(await deliver(receiver.base.replace('127.0.0.1', '127.0.0.2'), newWebhookSecret(), 'c', body, local)).toMatchObject({ status: 0, error: 'address not allowed' });
    expect(await deliver(`${receiver.base}/ok`, newWebhookSecret(), 'c', body)).toMatchObject({ status: 0, error: 'url must be https' });
    expect(receiver.received.length).toBe(before);
  });
});

describe('a delivery attempt in a process whose environment names a proxy', () => {
  it('goes straight to the address it checked, never through HTTP(S)_PROXY, though the process uses it otherwise', async () => {
    // The proxy: whatever reaches it is counted and answered 200, so that a request it took would look delivered.
    const proxied: string[] = [];
    const proxy = createServer((request, response) => {
      proxied.push(`${request.method} ${request.url}`);
      response.writeHead(200).end();
    }).on('connect', (request, socket) => {
      proxied.push(`CONNECT ${request.url}`);
      socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    try {
      const script = [
        "import { request } from 'node:http';",
        "import { deliver } from './lib/webhooks/deliver.ts';",
        // The process's own requests go through the proxy (the control)...
        `await new Promise((resolve) => request('${receiver.base}/control', resolve).on('error', resolve).end());`,
        // ...a delivery does not.
        `const attempt = await deliver('${receiver.base}/direct', 'whsec_${Buffer.from('k'.repeat(32)).toString('base64')}', 'change-9', '{}', { allowLoopback: true });`,
        'console.log(JSON.stringify(attempt));',
      ].join('\n');
      // Not spawnSync: this process's receiver and proxy answer the child.
      const child = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        env: { ...process.env, NODE_USE_ENV_PROXY: '1', HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, http_proxy: proxyUrl, https_proxy: proxyUrl, NO_PROXY: '', no_proxy: '' },
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(JSON.parse(child.stdout.trim().split('\n').at(-1)!)).toMatchObject({ status: 204, delivered: true });
      expect(proxied).toEqual([`GET ${receiver.base}/control`]);
      expect(receiver.at('/direct')).toHaveLength(1);
    } finally {
      proxy.close();
    }
  });
});
