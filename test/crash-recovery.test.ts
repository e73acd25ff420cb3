/**
 * A crash loses nothing (docs/changes-events-webhooks.md): `npm start` killed with SIGKILL under writers and started
 * again on its data dir has every write in the feed once and at a webhook receiver; its DynamoDB
 * Local, killed under it, is started again; DynamoDB Local listens on loopback only and does not
 * outlive the npm start that started it. How soon, after 4 crashes with 8 writers and 2
 * subscriptions, is measured by `BENCH_ONLY=crash npm run bench` (README: After a crash), not here:
 * a loaded machine's seconds are not the product's.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../lib/local/dynamodb-local.js';
import { dynamoDbLocalsOn, start } from './support/npm-start.js';
import { signedRequest } from './support/signed-request.js';
import { productWriters } from './support/product-writers.js';
import { useReceiver } from './support/receiver.js';

const apiKey = 'C0FFEE0123456789ABCDEF012';
const secureKey = 'C0FFEE0123456789ABCDEF0123456789ABCDEF0123456789';
const receiver = useReceiver();

let dataDir = '';
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'store-api-crash-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

const exited = (child: ChildProcessWithoutNullStreams) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

/** `npm start` on this file's data dir, as a user's shell starts it. */
async function npmStart(port: number) {
  const server = start({ DATA_DIR: dataDir, PORT: String(port), STORE_SECRET: '', DYNAMODB_ENDPOINT: '', STORE_TABLE_NAME: 'store', STORE_BOOTSTRAP_API_KEY: `${apiKey}:${secureKey}` });
  let output = await server.ready;
  server.child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  server.child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  return { child: server.child, output: () => output };
}

/** A signed request to the server on `port`. */
const send = (port: number, method: string, url: string, body?: unknown) => signedRequest(port, { apiKey, secureKey }, method, url, body);

/** Java processes working on this file's data dir (on the given port: one npm start's). */
const dynamoDbLocals = (port?: number) => dynamoDbLocalsOn(dataDir, port);

/** The local addresses listening on `port`, read from the kernel's socket tables (no traffic sent). */
async function listeningAddresses(port: number): Promise<string[]> {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const tables = await Promise.all(['/proc/net/tcp', '/proc/net/tcp6'].map((file) => readFile(file, 'utf8').catch(() => '')));
  return tables
    .flatMap((table) => table.trim().split('\n').slice(1))
    .map((line) => line.trim().split(/\s+/))
    .filter(([, local, , state]) => state === '0A' && local!.endsWith(`:${hexPort}`))
    .map(([, local]) => local!.split(':')[0]!);
}
/** 127.0.0.1 as /proc/net/tcp writes it, and as an IPv4-mapped address in /proc/net/tcp6. */
const LOOPBACK_HEX = ['0100007F', '0000000000000000FFFF00000100007F'];

describe('npm start after a crash', () => {
  it('killed under writers and started again, has each write in the feed once and at a webhook receiver; nothing lost or repeated', async () => {
    const port = await freePort();
    const first = await npmStart(port);
    const subscribed = await send(port, 'POST', '/api/webhooks', { url: `${receiver.base}/crash`, events: ['product.created'] });
    expect(subscribed.status).toBe(201);

    const before = productWriters(port, { apiKey, secureKey }, 4, `${port}-before`);
    await pause(2_000);
    first.child.kill('SIGKILL');
    await exited(first.child);
    await before.stop();
    // Its DynamoDB Local went with it: nothing holds the data dir.
    await expect.poll(() => dynamoDbLocals(), { timeout: 60_000, interval: 200 }).toBe('');

    const second = await npmStart(port);
    // Every write answered before the kill is there after the restart, the last ones included (answered a moment before it).
    const missing = [];
    for (const { id } of before.answered) if ((await send(port, 'GET', `/api/products/${id}`)).status !== 200) missing.push(id);
    expect(missing).toEqual([]);
    const after = productWriters(port, { apiKey, secureKey }, 4, `${port}-after`);
    // A few seconds of writes, more on a loaded machine, until a dozen were answered.
    const writing = Date.now();
    while (Date.now() - writing < 3_000 || (after.answered.length < 12 && Date.now() - writing < 15_000)) await pause(250);
    await after.stop();
    expect(after.answered.length).toBeGreaterThanOrEqual(12);

    // The feed as a client follows it, from its start, polled 4 times a second: when each product first shows.
    const shown = new Map<number, number>();
    const seen: number[] = [];
    let cursor: string | undefined;
    const everyWrite = [...before.answered, ...after.answered];
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && !everyWrite.every(({ id }) => shown.has(id))) {
      const page = await send(port, 'GET', `/api/changes?resource=product&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      for (const change of page.body as Array<{ ENTITY_ID: number }>) {
        seen.push(change.ENTITY_ID);
        if (!shown.has(change.ENTITY_ID)) shown.set(change.ENTITY_ID, Date.now());
      }
      cursor = page.headers.get('x-next-cursor') ?? cursor;
      if (page.body.length < 500) await pause(250);
    }
    // Each committed write once, those answered before the crash included.
    expect(everyWrite.filter(({ id }) => !shown.has(id))).toEqual([]);
    expect(seen.length).toBe(new Set(seen).size);

    // Every write answered after the restart reaches the receiver.
    const delivered = () => new Set(receiver.at('/crash').map((r) => (JSON.parse(r.body) as { ENTITY_ID: number }).ENTITY_ID));
    await expect.poll(() => after.answered.filter(({ id }) => !delivered().has(id)), { timeout: 60_000, interval: 250 }).toEqual([]);

    second.child.kill('SIGTERM');
    await exited(second.child);
  }, 240_000);
});

describe("npm start's DynamoDB Local", () => {
  it('listens on 127.0.0.1 only, and is started again when it dies, the API serving again', async () => {
    const port = await freePort();
    const server = await npmStart(port);
    const endpoint = new URL((await readFile(path.join(dataDir, 'dynamodb-endpoint'), 'utf8')).trim());
    const addresses = await listeningAddresses(Number(endpoint.port));
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) expect(LOOPBACK_HEX).toContain(address);

    const [pid] = dynamoDbLocals(Number(endpoint.port)).split('\n');
    expect(pid).toMatch(/^\d+$/);
    process.kill(Number(pid), 'SIGKILL');
    await expect.poll(server.output, { timeout: 60_000, interval: 100 }).toContain('DynamoDB Local stopped (SIGKILL): starting it again');
    await expect.poll(server.output, { timeout: 120_000, interval: 200 }).toContain('DynamoDB Local is running again');
    expect((await send(port, 'GET', '/api/tax-rules/1')).status).toBe(200);
    expect(server.child.exitCode).toBeNull();

    server.child.kill('SIGTERM');
    await exited(server.child);
    expect(dynamoDbLocals()).toBe('');
  }, 180_000);
});
