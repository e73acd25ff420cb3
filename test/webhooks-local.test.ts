/**
 * What README "Webhooks" promises a developer: `npm start` (as a process) delivers signed webhooks
 * to the README's own ten-line receiver (taken from the README and run as written), which verifies
 * each with the subscription's secret.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { signBody } from '../lib/api-keys/signature.js';
import { freePort } from '../lib/local/dynamodb-local.js';
import { start } from './support/npm-start.js';
import { readDocs } from './support/docs.js';

const children: ChildProcessWithoutNullStreams[] = [];
const receiverFile = path.resolve('test-artifacts', `readme-receiver-${process.pid}.mjs`);
afterAll(() => {
  for (const child of children) child.kill('SIGTERM');
  rmSync(receiverFile, { force: true });
});

/** The README's receiver: the js block of its "Webhooks" section. */
function readmeReceiver(): string {
  const readme = readDocs();
  const section = readme.slice(readme.indexOf('## Webhooks'));
  return /```js\n([\s\S]*?)```/.exec(section)![1]!;
}

describe('npm start and the README receiver', () => {
  it('delivers each change to the receiver, which verifies it with the secret of the subscription', async () => {
    const apiKey = '0123456789ABCDEF0123456AB';
    const secureKey = '0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF';
    const [apiPort, receiverPort] = [await freePort(), await freePort()];
    const api = start({ PORT: String(apiPort), STORE_BOOTSTRAP_API_KEY: `${apiKey}:${secureKey}` });
    children.push(api.child);
    await api.ready;
    const call = async (method: string, url: string, body: unknown) => {
      const raw = JSON.stringify(body);
      const response = await fetch(`http://127.0.0.1:${apiPort}${url}?sign=${signBody(secureKey, raw)}`, {
        method,
        headers: { Authorization: `Token ${apiKey}`, 'content-type': 'application/json' },
        body: raw,
      });
      return { status: response.status, body: (await response.json()) as Array<Record<string, unknown>> };
    };

    const subscribed = await call('POST', '/api/webhooks', { url: `http://127.0.0.1:${receiverPort}/`, events: ['product.*'] });
    expect(subscribed.status).toBe(201);
    mkdirSync(path.dirname(receiverFile), { recursive: true });
    writeFileSync(receiverFile, readmeReceiver());
    const receiver = spawn(process.execPath, [receiverFile], { env: { ...process.env, WEBHOOK_SECRET: String(subscribed.body[0]!.SECRET), PORT: String(receiverPort) } });
    children.push(receiver);
    let printed = '';
    receiver.stdout.on('data', (chunk) => (printed += chunk));
    await new Promise((resolve) => setTimeout(resolve, 300));

    const product = await call('POST', '/api/products', { ref: `HOOKED-${process.pid}`, default_category: 0, price: '2', currency: 1, tax_rule: 1, locale: 'en_US', title: 'Hooked' });
    expect(product.status).toBe(201);
    const id = product.body[0]!.ID;
    await expect.poll(() => printed, { timeout: 60_000, interval: 200 }).toContain(`product.created ${id} v1`);
  }, 180_000);
});
