/**
 * The typed client (`client/`, `@store-api/client`) as an integrator uses it: built by `npm run
 * build:client` and imported from `client/dist/`, against `npm start` whose DynamoDB is reached
 * through a TCP proxy that the test stalls. Its types are the API's document's, regenerated.
 */
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.js';
import { start, usersShell } from './support/npm-start.js';
import { useReceiver } from './support/receiver.js';
import { readDocs } from './support/docs.js';

/** What the test uses of the built client: it is imported from client/dist/, which the root's type check does not see. */
interface Client {
  GET(path: string, init?: object): Promise<{ data?: any; response: Response }>;
  POST(path: string, init?: object): Promise<{ data?: any; response: Response }>;
  PUT(path: string, init?: object): Promise<{ data?: any; response: Response }>;
  paginate(path: string, query?: object): AsyncGenerator<any>;
  followChanges(options: { cursor: string; onCursor?: (cursor: string) => void; resource?: string; pollMs?: number; signal?: AbortSignal }): AsyncGenerator<any>;
  batch(path: string, rows: unknown[], options?: { rounds?: number; pauseMs?: number }): Promise<Array<{ INDEX: number; STATUS: number; ID: number | null; ROW?: any; PROBLEM?: any }>>;
  syncStock(levels: Array<{ reference: string; quantity: number | string }>): Promise<Array<{ INDEX: number; STATUS: number; ID: number | null; ROW?: any; PROBLEM?: any }>>;
}
interface ClientModule {
  createStoreClient(options: { baseUrl: string; apiKey: string; secureKey: string; timeoutMs?: number; fetch?: typeof fetch }): Client;
  StoreApiError: new (...args: never[]) => Error & { status: number; errors: { field: string; message: string }[]; retryAfter?: number };
}
interface WebhooksModule {
  verifyWebhook(secret: string, body: string, headers: object): Promise<any>;
}

const root = path.resolve(import.meta.dirname, '..');
const receiver = useReceiver();
let proxy: FaultProxy;
let baseUrl: string;
let dataDir: string;
let client: Client;
let module: ClientModule;
let webhooks: WebhooksModule;
const apiKey = randomBytes(13).toString('hex').slice(0, 25).toUpperCase();
const secureKey = randomBytes(24).toString('hex').toUpperCase();

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const product = (ref: string) => ({ ref, default_category: 0, price: '19.99', currency: 1, tax_rule: 1, locale: 'en_US', title: 'From the client' });

beforeAll(async () => {
  if (!existsSync(path.join(root, 'client/node_modules'))) execFileSync('npm', ['ci', '--prefix', 'client', '--no-audit', '--no-fund'], { cwd: root, stdio: 'pipe' });
  execFileSync('npm', ['run', '--prefix', 'client', 'build'], { cwd: root, stdio: 'pipe' });
  module = (await import(pathToFileURL(path.join(root, 'client/dist/index.js')).href)) as ClientModule;
  webhooks = (await import(pathToFileURL(path.join(root, 'client/dist/webhooks.js')).href)) as WebhooksModule;
  proxy = await startFaultProxy(inject('dynamoEndpoint'));
  const port = await freePort();
  dataDir = mkdtempSync(path.join(tmpdir(), 'client-'));
  const server = start({
    PORT: String(port),
    DATA_DIR: dataDir,
    DYNAMODB_ENDPOINT: proxy.endpoint,
    STORE_TABLE_NAME: `client-${port}`,
    STORE_SECRET: '',
    STORE_BOOTSTRAP_API_KEY: `${apiKey}:${secureKey}`,
    STORE_REQUEST_BUDGET_MS: '2000',
    STORE_API_KEY_CACHE_SECONDS: '0',
  });
  await server.ready;
  baseUrl = `http://127.0.0.1:${port}`;
  client = module.createStoreClient({ baseUrl, apiKey, secureKey });
}, 240_000);

afterAll(async () => {
  proxy?.pass();
  await proxy?.close();
});

describe('@store-api/client', () => {
  it('has the types of the API document as it is now (client/src/schema.ts regenerated)', () => {
    const check = spawnSync(process.execPath, ['client/generate.mjs', '--check'], { cwd: root, encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
  });

  it("has published types that a strict consumer type-checks with skipLibCheck off, in TypeScript 5.9 and the project's, the README's sync job and receiver as written", () => {
    // A consumer as a project installs the client (a file: dependency on client/), its own strict settings.
    const consumer = mkdtempSync(path.join(tmpdir(), 'client-consumer-'));
    writeFileSync(path.join(consumer, 'package.json'), '{"type":"module"}');
    writeFileSync(
      path.join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023', 'DOM'],
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
          typeRoots: [path.join(root, 'node_modules/@types')],
        },
        include: ['main.ts', 'sync.ts', 'receiver.ts'],
      }),
    );
    // The README's TypeScript examples, each a file as it stands there.
    const [sync, receiver] = [...readDocs().matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
    expect(sync).toContain('// sync.ts');
    expect(receiver).toContain('// receiver.ts');
    writeFileSync(path.join(consumer, 'sync.ts'), sync!);
    writeFileSync(path.join(consumer, 'receiver.ts'), receiver!);
    writeFileSync(
      path.join(consumer, 'main.ts'),
      [
        "import { createStoreClient, StoreApiError } from '@store-api/client';",
        "import { verifyWebhook } from '@store-api/client/webhooks';",
        "const store = createStoreClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'K', secureKey: 'S' });",
        "export const page = await store.GET('/api/products', { params: { query: { limit: 5 } } });",
        "export const results = await store.batch('/api/products/batch', [{ op: 'delete', id: 1 }]);",
        'export const firstStatus: number | undefined = results[0]?.STATUS;',
        "for await (const product of store.paginate('/api/products')) console.log(product.REF);",
        'export const isProblem = (error: unknown) => error instanceof StoreApiError && error.status === 404;',
        'export { verifyWebhook };',
      ].join('\n'),
    );
    mkdirSync(path.join(consumer, 'node_modules/@store-api'), { recursive: true });
    symlinkSync(path.join(root, 'client'), path.join(consumer, 'node_modules/@store-api/client'));
    for (const tsc of [path.join(root, 'client/node_modules/.bin/tsc'), path.join(root, 'node_modules/.bin/tsc')]) {
      const check = spawnSync(tsc, ['-p', consumer], { encoding: 'utf8' });
      expect(check.status, `${tsc}: ${check.stdout}${check.stderr}`).toBe(0);
    }
    rmSync(consumer, { recursive: true, force: true });
  });

  it('creates, reads and pages with every request signed, and throws a typed error carrying the problem', async () => {
    const refs = Array.from({ length: 3 }, (_, i) => `CLIENT-${i}-${Date.now()}`);
    for (const ref of refs) {
      const { data, response } = await client.POST('/api/products', { body: product(ref) });
      expect(response.status).toBe(201);
      expect(data[0]).toMatchObject({ REF: ref, PRICE: '19.990000' });
    }
    const rows = [];
    for await (const row of client.paginate('/api/products', { limit: 2, order: 'id_reverse' })) rows.push(row.REF);
    expect(rows).toEqual(expect.arrayContaining(refs));
    const refused = await client.POST('/api/products', { body: { ...product('BAD'), price: '-1' } }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(module.StoreApiError);
    expect(refused).toMatchObject({ status: 400, errors: [{ field: 'price' }] });
  });

  it('sends a batch, and follows the change feed through a restart from the cursor it handed out', async () => {
    // `now`: from here on, of the resource followed (a cursor is bound to its filter).
    const { data: now, response } = await client.GET('/api/changes', { params: { query: { cursor: 'now', resource: 'product' } } });
    expect(now).toEqual([]);
    const start = response.headers.get('X-Next-Cursor')!;
    const first = `FEED-A-${Date.now()}`;
    const { data: results } = await client.POST('/api/products/batch', {
      body: {
        rows: [
          { op: 'upsert', ...product(first) },
          { op: 'upsert', ...product(`${first}-2`) },
        ],
      },
    });
    expect(results.map((result: { STATUS: number }) => result.STATUS)).toEqual([201, 201]);
    let saved = start;
    const controller = new AbortController();
    // The feed may still place changes of writes made before `now`: only the batch's are looked for.
    const refOf = (change: { CHANGES: { field: string; after: unknown }[] }) => change.CHANGES.find((field) => field.field === 'REF')?.after;
    const seen: unknown[] = [];
    for await (const change of client.followChanges({ cursor: start, resource: 'product', pollMs: 200, onCursor: (cursor) => (saved = cursor), signal: controller.signal })) {
      if (String(refOf(change)).startsWith(first)) seen.push(refOf(change));
      if (seen.length === 2) controller.abort();
    }
    // Rows of one batch run at once: in the feed, in the order they committed.
    expect(seen.sort()).toEqual([first, `${first}-2`]);
    // A restart from the saved cursor: what came after it, the changes already seen not again.
    const later = `FEED-B-${Date.now()}`;
    await client.POST('/api/products', { body: product(later) });
    const again = new AbortController();
    const after: unknown[] = [];
    for await (const change of client.followChanges({ cursor: saved, resource: 'product', pollMs: 200, signal: again.signal })) {
      after.push(refOf(change));
      if (refOf(change) === later) again.abort();
    }
    expect(after).toContain(later);
    expect(after).not.toContain(first);
  });

  it('sends any number of rows with batch(), in batches of 100, and sends again the rows answered 503 until each is applied', async () => {
    const run = `MANY-${Date.now()}`;
    const rows = Array.from({ length: 250 }, (_, n) => ({ op: 'upsert', ...product(`${run}-${n}`) }));
    /** Each request's rows: its first row's number and how many (`0+100`). */
    const sent: string[] = [];
    const recording = async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      if (init?.method === 'POST') {
        const sentRows = (JSON.parse(new TextDecoder().decode(init.body as Uint8Array)) as { rows: Array<{ ref: string }> }).rows;
        sent.push(`${sentRows[0]!.ref.slice(run.length + 1)}+${sentRows.length}`);
      }
      return fetch(input, init);
    };
    const batching = module.createStoreClient({ baseUrl, apiKey, secureKey, fetch: recording });
    // DynamoDB stalls through the first batch's budget (2 s), even for the write keeping its answer: a 503
    // the client sends again under its key; the rows that answer 503, applied or not, are sent again.
    proxy.stallOn('DynamoDB_20120810.TransactWriteItems');
    const released = new Promise((resolve) => setTimeout(() => resolve(proxy.pass()), 2_600));
    // With a 2 s budget, a batch applies what fits in it and answers the rest 503: on a loaded machine,
    // a few rows a round. As many rounds as that takes (the default 5 suits a 10 s budget).
    const results = await batching.batch('/api/products/batch', rows, { pauseMs: 200, rounds: 40 });
    await released;
    expect(results.map((result) => result.INDEX)).toEqual(rows.map((_, index) => index));
    expect(results.filter((result) => result.STATUS !== 201 && result.STATUS !== 204)).toEqual([]);
    // Batches of 100 at most, starting with the first rows; then the rows answered 503 (the first batch's,
    // whose writes the stall outlasted: sent again, they are updates), so more requests than three.
    const counts = sent.map((request) => Number(request.split('+')[1]));
    expect(Math.max(...counts)).toBe(100);
    expect(sent[0]).toBe('0+100');
    expect(sent.length).toBeGreaterThan(3);
    const { data: made } = await client.GET('/api/products', { params: { query: { ref: `${run}-7` } } });
    expect(made).toHaveLength(1);
    expect(results[7]).toMatchObject({ ID: made[0].ID });
  }, 180_000);

  it('syncs stock with syncStock(): each sale element found by its reference, its stock set; an unknown reference is that row’s 400', async () => {
    const ref = `STOCK-${Date.now()}`;
    const created = await client.POST('/api/products', { body: product(ref) });
    const productId = created.data[0].ID;
    const { data: elements } = await client.GET(`/api/pse/product/${productId}`);
    const results = await client.syncStock([
      { reference: ref, quantity: 7 },
      { reference: `${ref}-NOWHERE`, quantity: '1.5' },
    ]);
    expect(results.map((result) => result.STATUS)).toEqual([201, 400]);
    expect(results[0]).toMatchObject({ ID: elements[0].ID, ROW: { QUANTITY: '7.000000' } });
    expect(results[1]!.PROBLEM.errors.map((error: { field: string }) => error.field).sort()).toEqual(['rows[1].currency_id', 'rows[1].product_id']);
  });

  it("runs the README's sync job as written: upserts the ERP's products, follows the changes, and goes on from the cursor it kept in a file", async () => {
    const consumer = mkdtempSync(path.join(tmpdir(), 'client-sync-'));
    writeFileSync(path.join(consumer, 'package.json'), '{"type":"module"}');
    mkdirSync(path.join(consumer, 'node_modules/@store-api'), { recursive: true });
    symlinkSync(path.join(root, 'client'), path.join(consumer, 'node_modules/@store-api/client'));
    const [sync] = [...readDocs().matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
    writeFileSync(path.join(consumer, 'sync.ts'), sync!);
    /** Runs the job until its output holds `until`, then stops it (it follows the feed for ever); its output. */
    const runUntil = (until: RegExp, meanwhile: () => Promise<unknown>) =>
      new Promise<string>((resolve, reject) => {
        const job = spawn(process.execPath, ['--import', pathToFileURL(path.join(root, 'node_modules/tsx/dist/loader.mjs')).href, 'sync.ts'], {
          cwd: consumer,
          env: { ...process.env, BASE: baseUrl, KEY: apiKey, SECURE: secureKey },
        });
        let output = '';
        let started = false;
        const timer = setTimeout(() => job.kill(), 120_000);
        job.stdout.on('data', (chunk: Buffer) => {
          output += chunk;
          // Once the batch answered, the job follows the feed: the write made meanwhile must come through.
          if (!started && /^1 20[14]/m.test(output)) {
            started = true;
            meanwhile().catch(reject);
          }
          if (until.test(output)) job.kill();
        });
        job.stderr.on('data', (chunk: Buffer) => (output += chunk));
        job.on('exit', () => {
          clearTimeout(timer);
          resolve(output);
        });
      });
    const first = await runUntil(/^product created \d+$/m, async () => {
      // The cursor is kept once a page was read: a write after the job started comes through.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await client.POST('/api/products', { body: product(`SYNC-${apiKey.slice(0, 6)}`) });
    });
    expect(first).toMatch(/^0 201 $/m);
    expect(first).toMatch(/^1 201 $/m);
    expect(first).toMatch(/^product created \d+$/m);
    expect(existsSync(path.join(consumer, '.sync-cursor'))).toBe(true);
    // Run again: the same rows change nothing (204, and no change in the feed); the changes since the
    // kept cursor include a write made meanwhile.
    const created = Number(/^product created (\d+)$/m.exec(first)?.[1]);
    const second = await runUntil(/^product updated \d+$/m, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await client.PUT(`/api/products/${created}`, { body: { price: '21' } });
    });
    expect(second).toMatch(/^0 204 $/m);
    expect(second).toMatch(/^product updated \d+$/m);
    rmSync(consumer, { recursive: true, force: true });
  });

  it('waits out a 429 for as long as Retry-After says, then gets its answer', async () => {
    // `npm run api-key` as a user runs it beside npm start (not synchronously: the proxy it goes through runs in this process).
    const tool = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'lib/cli/api-key.ts', 'create', '--label', 'client quota', '--superadmin', '--quota', '2/2'], {
      cwd: root,
      env: usersShell({ DATA_DIR: dataDir, DYNAMODB_ENDPOINT: proxy.endpoint, STORE_TABLE_NAME: `client-${new URL(baseUrl).port}` }),
    });
    // What the client met on the wire, as its fetch saw it.
    const met: number[] = [];
    const recording = async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      const response = await fetch(input, init);
      met.push(response.status);
      return response;
    };
    const limited = module.createStoreClient({ baseUrl, fetch: recording, ...(JSON.parse(tool.stdout) as { apiKey: string; secureKey: string }) });
    // Past the quota of 2 in its window, a request meets a 429, waits what Retry-After says, and is
    // answered. Five requests sent at once span at most two windows (2 s each): one of them is past it.
    for (let i = 0; i < 5; i++) expect((await limited.GET('/api/tax-rules/1')).response.status).toBe(200);
    expect(met).toContain(429);
    expect(met.at(-1)).toBe(200);
  }, 180_000);

  it('retries a create answered 503 while DynamoDB stalled, with its one Idempotency-Key: exactly one record', async () => {
    const ref = `STALLED-${Date.now()}`;
    proxy.stallOn('DynamoDB_20120810.TransactWriteItems');
    // The held write reaches DynamoDB after the first attempt's 503 (its budget is 2 s); the retry finds it recorded.
    const released = new Promise((resolve) => setTimeout(() => resolve(proxy.pass()), 2_600));
    const { data, response } = await client.POST('/api/products', { body: product(ref) });
    await released;
    expect(response.status).toBe(201);
    expect(data[0].REF).toBe(ref);
    expect((await client.GET('/api/products', { params: { query: { ref } } })).data).toHaveLength(1);
  }, 180_000);

  it('verifies a delivered webhook with verifyWebhook, alone, and refuses one altered', async () => {
    const { data } = await client.POST('/api/webhooks', { body: { url: `${receiver.base}/client-hooks`, events: ['product.created'] } });
    const secret = data[0].SECRET as string;
    const ref = `HOOKED-${Date.now()}`;
    await client.POST('/api/products', { body: product(ref) });
    const until = Date.now() + 10_000;
    while (!receiver.at('/client-hooks').length && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
    const [delivery] = receiver.at('/client-hooks');
    expect(delivery).toBeDefined();
    const event = await webhooks.verifyWebhook(secret, delivery!.body, delivery!.headers);
    expect(JSON.stringify(event)).toContain(ref);
    await expect(webhooks.verifyWebhook(secret, delivery!.body.replace(ref, 'FORGED'), delivery!.headers)).rejects.toThrow('no signature matches');
  }, 180_000);
});
