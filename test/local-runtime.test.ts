/** The local runtime as a user meets it: the HTTP server, and `npm start` as a process. */
import { spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, symlink, mkdir } from 'node:fs/promises';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamoDbClient } from '../lib/db/client.js';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { createLocalServer, listen } from '../lib/local/server.js';
import { freePort } from '../lib/local/dynamodb-local.js';
import { signBody } from '../lib/api-keys/signature.js';
import { ensureApiKey, findActiveKey, revokeApiKey } from '../lib/api-keys/index.js';
import { superadminKey } from './support/api.js';
import { start, usersShell } from './support/npm-start.js';

describe('local HTTP server', () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createLocalServer();
    base = `http://127.0.0.1:${await listen(server, 0)}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('serves the health check and signed requests over HTTP', async () => {
    expect(await (await fetch(`${base}/api`)).text()).toBe('OK');
    const { apiKey, secureKey } = await superadminKey();
    const body = JSON.stringify({ country: [64], tax: [1], i18n: [{ locale: 'en_US', title: 'over HTTP' }] });
    const created = await fetch(`${base}/api/tax-rules?sign=${signBody(secureKey, body)}`, {
      method: 'POST',
      headers: { Authorization: `Token ${apiKey}`, 'Content-Type': 'application/json' },
      body,
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('etag')).toBe('"1"');
    expect(((await created.json()) as Array<{ TITLE: string }>)[0]!.TITLE).toBe('over HTTP');
  });

  it('answers 413 for a large body without reading it all, and 404/405 as problem+json', async () => {
    const large = await fetch(`${base}/api/tax-rules`, { method: 'POST', body: 'x'.repeat(1024 * 1024), headers: { 'Content-Type': 'application/json' } });
    expect(large.status).toBe(413);
    const wrongMethod = await fetch(`${base}/api/customers/checkLogin`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    const unknown = await fetch(`${base}/nothing`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toBe('application/problem+json');
  });
});

const exited = (child: ChildProcessWithoutNullStreams) => new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

describe('npm start', () => {
  let dataDir = '';
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'store-api-start-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('starts DynamoDB Local on its data dir, prints a working key and how to sign (never a sign value), serves keys the tool makes beside it, and stops it on SIGTERM', async () => {
    const port = await freePort();
    const { child, ready } = start({ DATA_DIR: dataDir, PORT: String(port), STORE_TABLE_NAME: 'store', DYNAMODB_ENDPOINT: '', STORE_SECRET: '' });
    const output = await ready;
    const { apiKey, secureKey } = JSON.parse(/\{"apiKey".*\}/.exec(output)![0]) as { apiKey: string; secureKey: string };
    // Three lines ready to paste (the key made now, shown this once), and a curl that runs as printed.
    const pasted = /^ {2}(BASE=\S+)\n {2}(KEY=\S+)\n {2}(SECURE=\S+)\n {2}(curl .*)$/m.exec(output);
    expect(pasted, output).not.toBeNull();
    expect([pasted![2], pasted![3]]).toEqual([`KEY=${apiKey}`, `SECURE=${secureKey}`]);
    expect(output).not.toContain(signBody(secureKey, ''));
    const asPrinted = spawnSync('bash', ['-c', `${pasted!.slice(1, 4).join('\n')}\n${pasted![4]} -s`], { encoding: 'utf8' });
    expect((JSON.parse(asPrinted.stdout) as Array<{ ID: number }>)[0]!.ID, asPrinted.stderr).toBe(1);
    const taxRules = `${pasted![1]!.slice('BASE='.length)}/api/tax-rules`;

    // A key the tool makes beside the running server: sealed with the data dir's secret, it works at
    // once, and its quota holds.
    const tool = spawnSync(process.execPath, ['--import', 'tsx', 'lib/cli/api-key.ts', 'create', '--label', 'beside npm start', '--grant', 'tax:VIEW', '--quota', '2/3600'], {
      // As a user's shell has it: only the data dir (this test process has its own table and endpoint).
      env: usersShell({ DATA_DIR: dataDir }),
      encoding: 'utf8',
    });
    expect(tool.status, tool.stderr).toBe(0);
    const made = JSON.parse(tool.stdout) as { apiKey: string; secureKey: string };
    const asMade = () => fetch(`${taxRules}/1?sign=${signBody(made.secureKey, '')}`, { headers: { Authorization: `Token ${made.apiKey}` } });
    const first = await asMade();
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit')).toMatch(/^"default";r=1;t=\d+$/);
    expect((await asMade()).status).toBe(200);
    expect((await asMade()).status).toBe(429);

    // No item of its DynamoDB Local holds either secure key in clear.
    const endpoint = (await readFile(path.join(dataDir, 'dynamodb-endpoint'), 'utf8')).trim();
    const scanned = await DynamoDBDocumentClient.from(createDynamoDbClient(endpoint)).send(new ScanCommand({ TableName: 'store' }));
    const text = JSON.stringify(scanned.Items).toUpperCase();
    expect(scanned.Items!.length).toBeGreaterThan(10);
    expect(text).not.toContain(secureKey.toUpperCase());
    expect(text).not.toContain(made.secureKey.toUpperCase());
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    expect(spawnSync('pgrep', ['-f', dataDir]).stdout.toString().trim()).toBe('');
  }, 180_000);

  it('makes the STORE_BOOTSTRAP_API_KEY key exist, against DYNAMODB_ENDPOINT; its hint names the data dir a tool must be given to reach it', async () => {
    const apiKey = 'ABCDEF0123456789ABCDEF012';
    const secureKey = 'FEDCBA9876543210FEDCBA9876543210FEDCBA9876543210';
    const port = await freePort();
    const { child, ready } = start({ DATA_DIR: dataDir, PORT: String(port), STORE_BOOTSTRAP_API_KEY: `${apiKey}:${secureKey}` });
    await ready;
    const response = await fetch(`http://127.0.0.1:${port}/api/tax-rules/2?sign=${signBody(secureKey, '')}`, { headers: { Authorization: `Token ${apiKey}` } });
    expect(response.status).toBe(200);
    child.kill('SIGINT');
    expect(await exited(child)).toBe(0);
    // Started again with its keys there: its hint, run as printed, reaches this store, not the default .data/.
    const again = start({ DATA_DIR: dataDir, PORT: String(await freePort()) });
    expect(await again.ready).toContain(`Create a key with: DATA_DIR=${JSON.stringify(path.resolve(dataDir))} npm run api-key -- create`);
    again.child.kill('SIGINT');
    expect(await exited(again.child)).toBe(0);
  }, 180_000);

  it("runs on DynamoDB's own transaction conflicts with STORE_LOCAL_CONFLICTS=1, retries them, and says on stopping how many it met", async () => {
    const apiKey = 'ABCDEF0123456789ABCDEF013';
    const secureKey = 'FEDCBA9876543210FEDCBA9876543210FEDCBA9876543211';
    const port = await freePort();
    const { child, ready } = start({ DATA_DIR: dataDir, PORT: String(port), STORE_BOOTSTRAP_API_KEY: `${apiKey}:${secureKey}`, STORE_LOCAL_CONFLICTS: '1', STORE_LOCAL_CONFLICT_HOLD_MS: '20' });
    expect(await ready).toMatch(/DynamoDB's transaction conflicts on: http:\/\/127\.0\.0\.1:\d+ in front of /);
    const send = (method: string, url: string, body?: unknown) => {
      const raw = body === undefined ? '' : JSON.stringify(body);
      return fetch(`http://127.0.0.1:${port}${url}?sign=${signBody(secureKey, raw)}`, {
        method,
        headers: { Authorization: `Token ${apiKey}`, ...(raw ? { 'Content-Type': 'application/json' } : {}) },
        ...(raw ? { body: raw } : {}),
      });
    };
    const created = await send('POST', '/api/products', { ref: `CONFLICTS-${port}`, default_category: 0, price: 1, currency: 1, tax_rule: 1, locale: 'en_US', title: 'Contended' });
    expect(created.status).toBe(201);
    const { ID } = ((await created.json()) as Array<{ ID: number }>)[0]!;
    // Eight writers of one record: their transactions meet, and each is tried again until it writes.
    const updates = await Promise.all(Array.from({ length: 8 }, (_, i) => send('PUT', `/api/products/${ID}`, { price: 2 + i })));
    expect(updates.map((update) => update.status)).toEqual(Array(8).fill(204));
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    const cancelled = Number(/DynamoDB's conflicts met: (\d+) transactions cancelled/.exec(output)?.[1]);
    expect(cancelled, output).toBeGreaterThan(0);
  }, 180_000);

  it('keeps its search index from the change feed, and builds it again from the table when its file is lost; its console shows a line per request', async () => {
    const apiKey = 'ABCDEF0123456789ABCDEF015';
    const secureKey = 'FEDCBA9876543210FEDCBA9876543210FEDCBA9876543213';
    const port = await freePort();
    // The console for people (lib/local/console.ts), as a terminal would get it.
    const env = { DATA_DIR: dataDir, PORT: String(port), STORE_BOOTSTRAP_API_KEY: `${apiKey}:${secureKey}`, STORE_LOG_FORMAT: 'text' };
    const send = (method: string, url: string, body?: unknown) => {
      const raw = body === undefined ? '' : JSON.stringify(body);
      return fetch(`http://127.0.0.1:${port}${url}${url.includes('?') ? '&' : '?'}sign=${signBody(secureKey, raw)}`, {
        method,
        headers: { Authorization: `Token ${apiKey}`, ...(raw ? { 'Content-Type': 'application/json' } : {}) },
        ...(raw ? { body: raw } : {}),
      });
    };
    /** The ids a title search answers, asked until it holds `id` (the index follows writes within seconds; 60 s is a hang). */
    const foundByTitle = async (term: string, id: number) => {
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
        const answer = await send('GET', `/api/products?lang=fr_FR&title=${encodeURIComponent(term)}`);
        // While the index is built, its lists answer 503 (index-building), never a part of the list.
        if (answer.status === 503) {
          expect(((await answer.json()) as { type: string }).type).toBe('/api/docs#problem-index-building');
          continue;
        }
        const rows = (await answer.json()) as Array<{ ID: number }>;
        if (rows.some((row) => row.ID === id)) return rows.map((row) => row.ID);
      }
      throw new Error(`no product titled ${term} found`);
    };
    let server = start(env);
    await server.ready;
    const created = await send('POST', '/api/products', { ref: `SEARCHED-${port}`, default_category: 0, price: 1, currency: 1, tax_rule: 1, locale: 'fr_FR', title: `Guéridon ${port}` });
    expect(created.status).toBe(201);
    const { ID } = ((await created.json()) as Array<{ ID: number }>)[0]!;
    expect(await foundByTitle(`GUERIDON ${port}`, ID)).toEqual([ID]);
    server.child.kill('SIGINT');
    expect(await exited(server.child)).toBe(0);

    // The index lost: npm start builds it from the table, and says so.
    for (const file of await readdir(dataDir)) if (file.startsWith('search-')) await rm(path.join(dataDir, file));
    server = start(env);
    // What it printed up to listening (its index's build may be said in the same write), then the rest.
    let output = await server.ready;
    server.child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    expect(await foundByTitle(`gueridon ${port}`, ID)).toEqual([ID]);
    // Said once the rebuild has also followed the feed from where it began, which may be just after the walk made the product findable.
    for (const deadline = Date.now() + 30_000; !/search index: built from the table/.test(output) && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(output).toMatch(/search index: built from the table \(\d+ records\)/);
    expect(output).toMatch(/^\d\d:\d\d:\d\d {2}GET {4}\/api\/products {2}200 {2}\d+\.\d ms {2}products\/list {2}key "/m);
    expect(output).not.toContain('"level":"info"');
    server.child.kill('SIGINT');
    expect(await exited(server.child)).toBe(0);
  }, 180_000);

  it('refuses to start on a STORE_BOOTSTRAP_API_KEY that was revoked, saying so, and the key stays revoked', async () => {
    const apiKey = 'ABCDEF0123456789ABCDEF014';
    const secureKey = 'FEDCBA9876543210FEDCBA9876543210FEDCBA9876543212';
    await ensureApiKey(apiKey, secureKey);
    expect(await revokeApiKey(apiKey)).toBe(true);
    const { child, ready } = start({ DATA_DIR: dataDir, PORT: String(await freePort()), STORE_BOOTSTRAP_API_KEY: `${apiKey}:${secureKey}` });
    const failed = await ready.then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(failed).toMatch(/exited with 1: .*start failed: the key ABCDEF0123456789ABCDEF014 \(STORE_BOOTSTRAP_API_KEY\) was revoked on .* and stays revoked/s);
    expect(child.exitCode).toBe(1);
    expect(await findActiveKey(apiKey)).toBeUndefined();
    // Revoking it again is no error: it is revoked, once.
    expect(await revokeApiKey(apiKey)).toBe(true);
  }, 180_000);

  it('says in one line what to install when Java is missing', async () => {
    const bin = path.join(dataDir, 'bin-without-java');
    await mkdir(bin, { recursive: true });
    await symlink(process.execPath, path.join(bin, 'node'));
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'lib/local/start.ts'], {
      env: { ...process.env, PATH: bin, DYNAMODB_ENDPOINT: '', DATA_DIR: dataDir, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining('Java 17')]);
  }, 180_000);
});
