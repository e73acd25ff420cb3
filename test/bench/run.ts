/**
 * `npm run bench`: speed and size, measured (not asserted). Numbers from this machine and DynamoDB
 * Local, not from AWS: compare runs and ratios, not absolutes.
 *   1. Cold start, as deployed: the app is synthesized; for every function, its asset's bytes and
 *      gzip bytes, and its import time in a fresh Node process with the template's environment,
 *      alternated with the floor handler (floor-handler.ts, built by the same esbuild in this run; each first in every other pair):
 *      medians of BENCH_PAIRS pairs, and the median of the pairs' ratios; the floor with the stack's
 *      libraries (stack-floor-handler.ts: what middy, valibot and the document client cost before any
 *      code of ours), and the floor without the bundles' substitutes (the SDK's default credential
 *      chain, node:http as an ES module). Then each function to its first answer: import, then its
 *      route's sample request against DynamoDB Local, alternated with the floor as the SDK ships doing
 *      its one GetItem (firstAnswers). Then what --enable-source-maps would cost.
 *   2. Warm latency of every route, in-process through the same dispatch as the local server,
 *      against an in-memory DynamoDB Local seeded with 200 customers and 200 products; and what a
 *      key's quota costs a read, against a raw GetItem (quotaCost).
 *   3. The Thelia import (import.ts): 10 000 customers + 10 000 products from MariaDB, twice; then
 *      100 000 products, and how their index entries spread over the indexes' partitions (partitions.ts).
 *   4. What recording changes costs a write, how soon a change is in the feed (changeCosts), how
 *      soon its webhook reaches a receiver on 127.0.0.1 (webhookDelay), and the feed kept up by its
 *      placer under 16 writers and through a backlog of 100 000 (feed.ts).
 *   5. Writes of one kind from 16 clients, with and without DynamoDB's transaction conflicts
 *      (contention.ts).
 *   6. Webhooks at store scale: healthy receivers' delays and deliveries a second, alone and beside
 *      a receiver that never answers and one that takes 9 s (webhooks.ts).
 *   7. Batch writes against single requests, rows a second, and the client's size (batch.ts).
 *   8. Webhook deliveries after SIGKILLs of `npm start` under writers (crash-deliveries.ts).
 *   9. Product lists at store scale, by the table and by the search index, and the index's lag (lists.ts).
 *  10. What Powertools' Metrics would cost a route against our EMF lines (powertools.ts).
 *  11. Stock taken from one sale element against each from its own, and a 10 000-SKU stock sync by
 *      batches against single PUTs (stock.ts); what DynamoDB Local charges a write and a read, by
 *      transaction size, which bounds both here (engine.ts).
 * BENCH_ONLY=cold, warm, login, changes, import, partitions, contention, engine, stock, sync, upserts, webhooks, batch, crash, lists or powertools runs one of them.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { bundleBuildOptions } from '../../infra/constructs/bundled-function.js';
import { functionEnvironments } from '../../lib/cli/sam-env.js';
import { startDynamoDbLocal } from '../../lib/local/dynamodb-local.js';
import { handlerFile } from '../../lib/routes.js';
import { type BuiltFunction, type Invocation, runBuilt, synthesizeFunctions } from '../support/built-functions.js';
import { startKmsStandIn } from '../support/kms-stand-in.js';
import { startSecretsManagerStandIn } from '../support/secrets-manager-stand-in.js';
import { batchBenchmark, clientSize } from './batch.js';
import { contentionBenchmark } from './contention.js';
import { stockBenchmark, stockSyncBenchmark } from './stock.js';
import { engineBenchmark } from './engine.js';
import { competingUpsertsBenchmark } from './upserts.js';
import { deliveriesAfterCrashes } from './crash-deliveries.js';
import { feedInBackground } from './feed.js';
import { webhooksAtScale } from './webhooks.js';
import { importBenchmark } from './import.js';
import { listsBenchmark } from './lists.js';
import { partitionsBenchmark } from './partitions.js';
import { powertoolsMetricsCost } from './powertools.js';

process.env.STORE_LOG_LEVEL = 'silent';
process.env.STORE_TABLE_NAME = 'bench';
// The bench's processes sign, fingerprint and seal under a secret of its own run (there is no default: lib/secrets.ts).
process.env.STORE_SECRET ??= randomBytes(32).toString('hex');

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 15);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

async function coldStart(): Promise<void> {
  const outdir = mkdtempSync(path.join(tmpdir(), 'store-api-bench-'));
  try {
    const floorFile = path.join(outdir, 'floor', 'index.mjs');
    await build(bundleBuildOptions('test/bench/floor-handler.ts', floorFile));
    // The same floor without the bundles' substitutes (BUNDLE.substitutes: the SDK's default credential
    // chain, node:http as an ES module), as every function was bundled before them: what they save.
    const unsubstitutedFile = path.join(outdir, 'floor-no-substitutes', 'index.mjs');
    const { alias: _substitutes, ...unsubstituted } = bundleBuildOptions('test/bench/floor-handler.ts', unsubstitutedFile);
    await build(unsubstituted);
    const stackFloorFile = path.join(outdir, 'stack-floor', 'index.mjs');
    await build(bundleBuildOptions('test/bench/stack-floor-handler.ts', stackFloorFile));
    const { functions, template } = synthesizeFunctions(outdir);
    const environments = functionEnvironments(template, { STORE_TABLE_NAME: 'bench', STORE_SECRET: 'bench', DYNAMODB_ENDPOINT: '' });

    /**
     * Import times of a function and of the floor in alternating fresh processes: their medians, and
     * the median of each pair's ratio (a pair runs back to back, so the machine's drift cancels out).
     */
    const pairs = async (file: string, exportName: string, environment: Record<string, string>) => {
      const [own, floor, ratio]: [number[], number[], number[]] = [[], [], []];
      for (let i = 0; i < PAIRS; i++) {
        // Each goes first in every other pair: on this machine the second of two fresh processes
        // run back to back was seen to take a few percent more or less than the first.
        const runFloor = async () => floor.push((await runBuilt(floorFile, 'handler', environment)).importMs);
        const runOwn = async () => own.push((await runBuilt(file, exportName, environment)).importMs);
        if (i % 2 === 0) await runFloor().then(runOwn);
        else await runOwn().then(runFloor);
        ratio.push(own.at(-1)! / floor.at(-1)!);
      }
      return { own: median(own), floor: median(floor), ratio: median(ratio) };
    };

    const floorBytes = readFileSync(floorFile);
    console.log(
      `cold start: fresh-process import, ${PAIRS} pairs alternated with the floor handler (${kib(floorBytes.length)}, gzip ${kib(gzipSync(floorBytes).length)}); ratio = median of the pairs' ratios`,
    );
    console.log('function'.padEnd(24), 'bytes'.padStart(11), 'gzip'.padStart(11), 'import ms'.padStart(10), 'floor ms'.padStart(9), 'ratio'.padStart(6));
    /** A bundle's row: its bytes, and its pairs against the floor. */
    const measured = async (name: string, file: string, exportName: string, environment: Record<string, string>) => {
      const bytes = readFileSync(file);
      const result = await pairs(file, exportName, environment);
      console.log(
        name.padEnd(24),
        kib(bytes.length).padStart(11),
        kib(gzipSync(bytes).length).padStart(11),
        result.own.toFixed(1).padStart(10),
        result.floor.toFixed(1).padStart(9),
        result.ratio.toFixed(2).padStart(6),
      );
      return result;
    };
    // The floor against itself: how far from 1.00 this machine's noise alone puts a ratio.
    await measured('floor (control)', floorFile, 'handler', Object.values(environments)[0]!);
    await measured('floor + the stack', stackFloorFile, 'handler', Object.values(environments)[0]!);
    const unsubstitutedFloor = await measured('floor, no substitutes', unsubstitutedFile, 'handler', Object.values(environments)[0]!);
    const ratios: Array<{ name: string; ratio: number; own: number; hashes: boolean }> = [];
    for (const fn of functions) {
      const { ratio, own } = await measured(fn.route.name, fn.file, fn.handler.split('.')[1]!, environments[fn.logicalId]!);
      ratios.push({ name: fn.route.name, ratio, own, hashes: fn.route.deployment.hashesPasswords });
    }
    for (const hashes of [false, true]) {
      const group = ratios.filter((r) => r.hashes === hashes);
      const worst = group.reduce((a, b) => (b.ratio > a.ratio ? b : a));
      console.log(`worst ${hashes ? 'password-hashing' : 'other'} function: ${worst.name} ${worst.ratio.toFixed(2)}× (median of the group ${median(group.map((r) => r.ratio)).toFixed(2)}×)`);
    }
    // The same medians against the floor as the SDK ships (its default chain): not paired, so only a reading.
    const slowest = ratios.reduce((a, b) => (b.own > a.own ? b : a));
    console.log(
      `against the floor without substitutes (${unsubstitutedFloor.own.toFixed(1)} ms): median ${(median(ratios.map((r) => r.own)) / unsubstitutedFloor.own).toFixed(2)}×, slowest ${slowest.name} ${(slowest.own / unsubstitutedFloor.own).toFixed(2)}×`,
    );

    await firstAnswers(functions, template, unsubstitutedFile, floorFile);

    // The stack sets no NODE_OPTIONS: this shows what --enable-source-maps would cost (with maps built).
    console.log('\nthe cost of NODE_OPTIONS=--enable-source-maps, with source maps built (alternated, medians)');
    for (const name of ['health/get', 'products/list', 'customers/check-login']) {
      const fn = functions.find((f) => f.route.name === name)!;
      const mapped = path.join(outdir, 'mapped', fn.route.name, 'index.mjs');
      await build({ ...bundleBuildOptions(handlerFile(fn.route), mapped), sourcemap: true });
      const environment = environments[fn.logicalId]!;
      const [withMaps, without]: [number[], number[]] = [[], []];
      for (let i = 0; i < PAIRS; i++) {
        withMaps.push((await runBuilt(mapped, 'handler', { ...environment, NODE_OPTIONS: '--enable-source-maps' })).importMs);
        without.push((await runBuilt(mapped, 'handler', environment)).importMs);
      }
      console.log(name.padEnd(24), `with ${median(withMaps).toFixed(1)} ms, without ${median(without).toFixed(1)} ms`);
    }
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/**
 * Cold start to the first answer: a fresh process imports a function and answers its route's sample
 * request (events/, in their play order, against DynamoDB Local in memory with the sample key made),
 * alternated with the floor as the SDK ships (one GetItem, the default credential chain, its client
 * made on first use) doing the same: import, then its GetItem. Medians of BENCH_PAIRS pairs and of
 * their ratios, for the import alone and to the answer; and the floor as the functions are built
 * (the bundles' substitutes) as a reading. As on AWS, the sample key is sealed under KMS and the
 * functions that sign or fingerprint read the server secret from Secrets Manager, both answered by
 * stand-ins on 127.0.0.1 (test/support/): a route's first answer loads the clients bundled beside it,
 * opens the key's data key and reads the secret as a deployed one does.
 */
async function firstAnswers(functions: BuiltFunction[], template: Parameters<typeof functionEnvironments>[0], floorFile: string, substitutedFloorFile: string): Promise<void> {
  const [dynamo, kms, secretsManager] = await Promise.all([startDynamoDbLocal(), startKmsStandIn(), startSecretsManagerStandIn(process.env.STORE_SECRET!)]);
  try {
    const { eventFile, loadSampleRequests } = await import('../../lib/local/sample-events.js');
    // The table set up and the sample key sealed under KMS by a process of its own, run apart (the
    // stand-in answers from here): this process's DynamoDB client, one a process, stays the later
    // sections', and it may hold a data key sealed otherwise.
    const kmsEnvironment = { STORE_SECRETS_KEY_ARN: kms.keyId, KMS_ENDPOINT: kms.endpoint };
    const setUp = `import { setUpTable } from './lib/local/setup.ts'; import { ensureApiKey } from './lib/api-keys/index.ts'; import { SAMPLE_API_KEY, SAMPLE_SECURE_KEY } from './lib/local/sample-events.ts'; await setUpTable(); await ensureApiKey(SAMPLE_API_KEY, SAMPLE_SECURE_KEY);`;
    await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', setUp], {
      env: { ...process.env, ...kmsEnvironment, DYNAMODB_ENDPOINT: dynamo.endpoint, STORE_TABLE_NAME: 'bench' },
    });
    const environments = functionEnvironments(template, { STORE_TABLE_NAME: 'bench', STORE_SECRET: process.env.STORE_SECRET!, DYNAMODB_ENDPOINT: dynamo.endpoint });
    for (const environment of Object.values(environments)) {
      if ('STORE_SECRETS_KEY_ARN' in environment) Object.assign(environment, kmsEnvironment);
      // The server secret from Secrets Manager where the stack gives its ARN; given nowhere.
      if ('STORE_SECRET_ARN' in environment) Object.assign(environment, { STORE_SECRET_ARN: secretsManager.secretArn, AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.endpoint });
      delete environment.STORE_SECRET;
    }
    const floorEnvironment = { STORE_TABLE_NAME: 'bench', AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint };
    const total = (run: Invocation) => run.importMs + (run.invokeMs ?? 0);
    console.log(`\ncold start to the first answer: fresh process, import then the route's sample request, ${PAIRS} pairs alternated with the floor as the SDK ships (import, then its GetItem)`);
    console.log('function'.padEnd(24), 'import ms'.padStart(10), 'answer ms'.padStart(10), 'floor'.padStart(7), 'import ×'.padStart(9), 'answer ×'.padStart(9), 'status'.padStart(7));
    const rows: Array<{ name: string; importRatio: number; answerRatio: number }> = [];
    const measure = async (name: string, file: string, exportName: string, environment: Record<string, string>, event: string, status?: number) => {
      const [ownImport, own, floor, importRatio, answerRatio]: [number[], number[], number[], number[], number[]] = [[], [], [], [], []];
      let answered = 0;
      for (let i = 0; i < PAIRS; i++) {
        const runFloor = () => runBuilt(floorFile, 'handler', floorEnvironment, event);
        const runOwn = () => runBuilt(file, exportName, environment, event);
        const [f, o] = i % 2 === 0 ? [await runFloor(), await runOwn()] : await runOwn().then(async (o) => [await runFloor(), o] as const);
        if (o.response?.statusCode === (status ?? 200)) answered++;
        ownImport.push(o.importMs);
        own.push(total(o));
        floor.push(total(f));
        importRatio.push(o.importMs / f.importMs);
        answerRatio.push(total(o) / total(f));
      }
      const row = { name, importRatio: median(importRatio), answerRatio: median(answerRatio) };
      console.log(
        name.padEnd(24),
        median(ownImport).toFixed(1).padStart(10),
        median(own).toFixed(1).padStart(10),
        median(floor).toFixed(1).padStart(7),
        row.importRatio.toFixed(2).padStart(9),
        row.answerRatio.toFixed(2).padStart(9),
        `${answered}/${PAIRS}`.padStart(7),
      );
      return row;
    };
    const firstSample = (await loadSampleRequests())[0]!;
    await measure('floor (control)', floorFile, 'handler', floorEnvironment, path.resolve(eventFile(firstSample.route)));
    await measure('floor, substitutes', substitutedFloorFile, 'handler', floorEnvironment, path.resolve(eventFile(firstSample.route)));
    for (const sample of await loadSampleRequests()) {
      const fn = functions.find((f) => f.route.name === sample.route)!;
      rows.push(await measure(fn.route.name, fn.file, fn.handler.split('.')[1]!, environments[fn.logicalId]!, path.resolve(eventFile(sample.route)), fn.route.status));
    }
    const worst = (key: 'importRatio' | 'answerRatio') => rows.reduce((a, b) => (b[key] > a[key] ? b : a));
    console.log(
      `against the floor as the SDK ships: import median ${median(rows.map((r) => r.importRatio)).toFixed(2)}×, slowest ${worst('importRatio').name} ${worst('importRatio').importRatio.toFixed(2)}×; to the first answer median ${median(rows.map((r) => r.answerRatio)).toFixed(2)}×, slowest ${worst('answerRatio').name} ${worst('answerRatio').answerRatio.toFixed(2)}×`,
    );
  } finally {
    await Promise.all([dynamo.stop(), kms.close(), secretsManager.close()]);
  }
}

/** Calls the API in-process, through the local server's dispatch, signed with a new superadmin key. */
async function signedCaller(label: string, quota?: { requests: number; seconds: number }) {
  const { createApiKey } = await import('../../lib/api-keys/index.js');
  const { signBody } = await import('../../lib/api-keys/signature.js');
  const { dispatch } = await import('../../lib/local/dispatch.js');
  const key = await createApiKey({ label, superadmin: true, ...(quota ? { quota } : {}) });
  return async (method: string, url: string, body?: unknown) => {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const response = await dispatch({
      method,
      url: `${url}${url.includes('?') ? '&' : '?'}sign=${signBody(key.secureKey, raw)}`,
      headers: { authorization: `Token ${key.apiKey}`, ...(raw ? { 'content-type': 'application/json' } : {}) },
      body: raw,
    });
    return { status: response.statusCode ?? 0, body: response.body ?? '', headers: (response.headers ?? {}) as Record<string, string> };
  };
}

/**
 * What a key's quota costs a read: a warm `GET /api/tax-rules/{id}` with a key without a quota and
 * with the default one (1 200 a minute), beside a raw GetItem of the same item from the same process;
 * interleaved, so that the machine's drift touches the three alike. Medians, and their ratios to the raw read.
 */
async function quotaCost(): Promise<void> {
  const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
  const { db, tableName } = await import('../../lib/db/client.js');
  const { taxRules } = await import('../../lib/tax-rules/entity.js');
  const unlimited = await signedCaller('bench without a quota');
  const limited = await signedCaller('bench with a quota', { requests: 1_200, seconds: 60 });
  const times: Record<string, number[]> = { 'raw GetItem': [], 'GET /api/tax-rules/1, no quota': [], 'GET /api/tax-rules/1, quota 1200/60': [] };
  const rounds: Array<[string, () => Promise<unknown>]> = [
    ['raw GetItem', () => db().send(new GetCommand({ TableName: tableName(), Key: taxRules.key(1) }))],
    ['GET /api/tax-rules/1, no quota', () => unlimited('GET', '/api/tax-rules/1')],
    ['GET /api/tax-rules/1, quota 1200/60', () => limited('GET', '/api/tax-rules/1')],
  ];
  for (let i = 0; i < ITERATIONS * 2; i++) {
    for (const [name, run] of rounds) {
      const t = performance.now();
      const answer = (await run()) as { status?: number };
      if (answer.status !== undefined && answer.status !== 200) throw new Error(`${name} answered ${answer.status}`);
      if (i >= 20) times[name]!.push(performance.now() - t); // the first ones warm the containers
    }
  }
  const raw = median(times['raw GetItem']!);
  console.log(`
a quota's cost to a warm read (${ITERATIONS * 2} of each, interleaved, in-process): median, and its ratio to the raw GetItem`);
  for (const [name, samples] of Object.entries(times)) console.log(name.padEnd(50), `${median(samples).toFixed(2)} ms`.padStart(10), `${(median(samples) / raw).toFixed(2)}×`.padStart(7));
}

/** A customer the benches create, with this last name and email. */
const benchCustomer = (lastname: string, email: string) => ({
  title: 1,
  firstname: 'Bench',
  lastname,
  email,
  password: 'bench password',
  lang_id: 1,
  country: 64,
  zipcode: '75001',
  city: 'Paris',
  address1: '1 rue',
});

async function warmLatency(): Promise<void> {
  const { setUpTable } = await import('../../lib/local/setup.js');
  await setUpTable();
  const call = await signedCaller('bench');

  let n = 0;
  const customer = () => {
    n++;
    return benchCustomer(`Name${n}`, `bench${n}@example.com`);
  };
  const product = () => ({ ref: `BENCH-${++n}`, default_category: 0, price: '19.99', currency: 1, tax_rule: 1, locale: 'en_US', title: 'Bench', visible: n % 2 });

  for (let i = 0; i < 200; i++) {
    await call('POST', '/api/customers', customer());
    await call('POST', '/api/products', product());
  }
  const login = customer();
  await call('POST', '/api/customers', login);

  const scenarios: Array<[string, () => Promise<{ status: number }>]> = [
    ['GET /api', () => call('GET', '/api')],
    ['GET /api/tax-rules', () => call('GET', '/api/tax-rules')],
    ['GET /api/tax-rules/1', () => call('GET', '/api/tax-rules/1')],
    ['GET /api/customers (page 1)', () => call('GET', '/api/customers?limit=20')],
    ['GET /api/customers?order=lastname&offset=100', () => call('GET', '/api/customers?limit=20&order=lastname&offset=100')],
    ['GET /api/customers/100', () => call('GET', '/api/customers/100')],
    ['POST /api/customers (Argon2id)', () => call('POST', '/api/customers', customer())],
    ['POST /api/customers/checkLogin', () => call('POST', '/api/customers/checkLogin', { email: login.email, password: login.password })],
    ['GET /api/products (page 1)', () => call('GET', '/api/products?limit=20')],
    ['GET /api/products?visible=1&order=ref', () => call('GET', '/api/products?limit=20&visible=1&order=ref')],
    ['GET /api/products/100', () => call('GET', '/api/products/100')],
    ['POST /api/products', () => call('POST', '/api/products', product())],
    ['PUT /api/products/100', () => call('PUT', '/api/products/100', { price: Math.random() * 100 > 50 ? '10' : '20' })],
  ];

  console.log(`\nwarm latency (${ITERATIONS} requests each, sequential, in-process)`);
  console.log('route'.padEnd(50), 'p50 ms'.padStart(8), 'p95 ms'.padStart(8), 'max ms'.padStart(8), 'req/s'.padStart(8));
  for (const [name, run] of scenarios) {
    const times: number[] = [];
    const iterations = name.includes('Argon2id') || name.includes('checkLogin') ? Math.min(ITERATIONS, 50) : ITERATIONS;
    const start = performance.now();
    for (let i = 0; i < iterations; i++) {
      const t = performance.now();
      const { status } = await run();
      if (status >= 400) throw new Error(`${name} answered ${status}`);
      times.push(performance.now() - t);
    }
    const total = performance.now() - start;
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1);
    console.log(name.padEnd(50), at(0.5).padStart(8), at(0.95).padStart(8), times.at(-1)!.toFixed(1).padStart(8), ((iterations * 1000) / total).toFixed(0).padStart(8));
  }
}

/**
 * checkLogin's timing (docs/api.md): an unknown email, a wrong password for an Argon2id hash and a
 * wrong password for a bcrypt hash imported from Thelia must take the same time. Interleaved, so
 * that the machine's drift touches the three alike; ratios of the medians to the unknown email's.
 */
async function checkLoginTimings(): Promise<void> {
  const { customers } = await import('../../lib/customers/entity.js');
  const { writeAtomically } = await import('../../lib/db/transactions.js');
  const bcrypt = (await import('bcryptjs')).default;
  const call = await signedCaller('bench-login');
  const wrongCheck = async (email: string) => {
    const started = performance.now();
    const { status } = await call('POST', '/api/customers/checkLogin', { email, password: 'wrong password' });
    if (status !== 404) throw new Error(`a wrong check answered ${status}`);
    return performance.now() - started;
  };
  const PER_KIND = 30;
  const customersOf = async (kind: string, bcryptHash?: string) => {
    const emails: string[] = [];
    // 3 wrong checks per customer: under the lock-out's 10.
    for (let i = 0; i < PER_KIND / 3; i++) {
      const email = `login-${kind}-${i}@example.com`;
      const created = await call('POST', '/api/customers', benchCustomer('Login', email));
      const id = (JSON.parse(created.body) as Array<{ ID: number }>)[0]!.ID;
      if (bcryptHash) {
        const change = { set: { passwordHash: bcryptHash } };
        await writeAtomically([customers.patch(id, change), customers.patchLock('email', email, change)]);
      }
      emails.push(email, email, email);
    }
    return emails;
  };
  // Thelia's hashes: PHP's password_hash, bcrypt at cost 10.
  const theliaHash = bcrypt.hashSync('thelia password', 10).replace(/^\$2b\$/, '$2y$');
  const argon = await customersOf('argon2id');
  const thelia = await customersOf('bcrypt', theliaHash);
  const times: Record<'unknown email' | 'wrong password, Argon2id hash' | 'wrong password, bcrypt hash (Thelia)', number[]> = {
    'unknown email': [],
    'wrong password, Argon2id hash': [],
    'wrong password, bcrypt hash (Thelia)': [],
  };
  for (let i = 0; i < PER_KIND; i++) {
    times['unknown email'].push(await wrongCheck(`nobody-${i}@example.com`));
    times['wrong password, Argon2id hash'].push(await wrongCheck(argon[i]!));
    times['wrong password, bcrypt hash (Thelia)'].push(await wrongCheck(thelia[i]!));
  }
  const unknown = median(times['unknown email']);
  console.log(`\ncheckLogin answering 404 (${PER_KIND} each, interleaved, in-process): median, and its ratio to the unknown email's`);
  for (const [name, samples] of Object.entries(times)) console.log(name.padEnd(50), `${median(samples).toFixed(1)} ms`.padStart(10), `${(median(samples) / unknown).toFixed(2)}×`.padStart(7));
}

/**
 * What recording changes costs (docs/changes-events-webhooks.md): a product update's transaction with its change and
 * marker, alternated with the same transaction without them (pairs back to back, so the machine's
 * drift cancels out); then the delay from a write's answer to its change in GET /api/changes, and
 * the time of a feed page of 100 changes.
 */
async function changeCosts(): Promise<void> {
  const { products } = await import('../../lib/products/entity.js');
  const { writeAtomically } = await import('../../lib/db/transactions.js');
  const { stampWrite } = await import('../../lib/db/stamp.js');
  const call = await signedCaller('bench-changes');
  const created = await call('POST', '/api/products', { ref: `BENCH-CHANGES-${Date.now()}`, default_category: 0, price: '1', currency: 1, tax_rule: 1, locale: 'en_US', title: 'Bench' });
  const id = (JSON.parse(created.body) as Array<{ ID: number }>)[0]!.ID;
  const recording = (step: { item: object }) => /"pk":"CHANGES?#/.test(JSON.stringify(step.item));
  const update = async (record: boolean) => {
    const current = (await products.read(id))!;
    const next = { ...current, price: `${current.version}.000000`, version: current.version + 1, updatedAt: new Date().toISOString() };
    const steps = products.replace(stampWrite(), current, next, current.version);
    const started = performance.now();
    await writeAtomically(record ? steps : steps.filter((step) => !recording(step)));
    return performance.now() - started;
  };
  const [withChange, without, ratio]: [number[], number[], number[]] = [[], [], []];
  for (let i = 0; i < PAIRS * 10; i++) {
    without.push(await update(false));
    withChange.push(await update(true));
    ratio.push(withChange.at(-1)! / without.at(-1)!);
  }
  console.log(`
recording changes: a product update's transaction, ${PAIRS * 10} pairs alternated, in-process`);
  console.log('without its change'.padEnd(50), `${median(without).toFixed(2)} ms`.padStart(10));
  console.log('with its change and marker (2 more items)'.padEnd(50), `${median(withChange).toFixed(2)} ms`.padStart(10), `${median(ratio).toFixed(2)}×`.padStart(7));

  const feedCursor = (url: string) => dispatchGet(call, url);
  let cursor = (await feedCursor('/api/changes?cursor=now')).cursor;
  const delays: number[] = [];
  for (let i = 0; i < 50; i++) {
    const answer = await call('PUT', `/api/products/${id}`, { price: String(100 + i) });
    if (answer.status !== 204) throw new Error(`the update answered ${answer.status}`);
    const answered = performance.now();
    for (;;) {
      const page = await feedCursor(`/api/changes?cursor=${encodeURIComponent(cursor)}`);
      cursor = page.cursor;
      if (page.rows > 0) break;
    }
    delays.push(performance.now() - answered);
  }
  for (let i = 0; i < 100; i++) await call('PUT', `/api/products/${id}`, { price: String(1000 + i) });
  const pages: number[] = [];
  const from = cursor;
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    const page = await feedCursor(`/api/changes?limit=100&cursor=${encodeURIComponent(from)}`);
    pages.push(performance.now() - started);
    if (page.rows !== 100) throw new Error(`a feed page held ${page.rows} changes`);
  }
  console.log(`a write's answer to its change in GET /api/changes (50 writes)`.padEnd(50), `${median(delays).toFixed(1)} ms`.padStart(10), `max ${Math.max(...delays).toFixed(1)} ms`);
  console.log('a feed page of 100 changes'.padEnd(50), `${median(pages).toFixed(1)} ms`.padStart(10));
}

/**
 * From a write's answer to its webhook at a receiver on 127.0.0.1, with the worker ticking every 500 ms as
 * `npm start` runs them: 30 product updates, a little apart.
 */
async function webhookDelay(): Promise<void> {
  const { createServer } = await import('node:http');
  const { WebhookWorker } = await import('../../lib/webhooks/worker.js');
  const worker = new WebhookWorker();
  process.env.STORE_WEBHOOKS_ALLOW_LOOPBACK = '1';
  const call = await signedCaller('bench-webhooks');
  const received = new Map<string, number>();
  const receiver = createServer((request, response) => {
    received.set(String(request.headers['webhook-id']), performance.now());
    request.resume();
    response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as { port: number }).port;
  await call('POST', '/api/webhooks', { url: `http://127.0.0.1:${port}/`, events: ['product.updated'] });
  const created = await call('POST', '/api/products', { ref: `BENCH-HOOK-${Date.now()}`, default_category: 0, price: '1', currency: 1, tax_rule: 1, locale: 'en_US', title: 'Bench' });
  const id = (JSON.parse(created.body) as Array<{ ID: number }>)[0]!.ID;
  let running = true;
  const rounds = (async () => {
    while (running) {
      await worker.tick();
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  const answered: Array<{ at: number; version: number }> = [];
  for (let i = 0; i < 30; i++) {
    await call('PUT', `/api/products/${id}`, { price: String(10 + i) });
    answered.push({ at: performance.now(), version: i + 2 });
    await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 300));
  }
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  running = false;
  await rounds;
  receiver.close();
  // The feed's changes of this product, by version, give each delivery's webhook-id.
  const { readHistory } = await import('../../lib/db/feed.js');
  const { changes } = await readHistory('product', id, undefined, 100);
  const delays = answered.map(({ at, version }) => received.get(changes.find((c) => c.version === version && c.type === 'updated')!.id)! - at);
  if (delays.some((d) => !Number.isFinite(d))) throw new Error('a webhook did not arrive');
  console.log(
    `a write's answer to its webhook at a local receiver (30 writes, ticks every 500 ms)`.padEnd(50),
    `${median(delays).toFixed(0)} ms`.padStart(10),
    `max ${Math.max(...delays).toFixed(0)} ms`,
  );
}

/** A GET of the feed: its rows and the cursor it answers with. */
async function dispatchGet(call: Awaited<ReturnType<typeof signedCaller>>, url: string): Promise<{ rows: number; cursor: string }> {
  const response = await call('GET', url);
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
  return { rows: (JSON.parse(response.body) as unknown[]).length, cursor: response.headers['X-Next-Cursor']! };
}

const only = process.env.BENCH_ONLY;
if (!only || only === 'cold') await coldStart();
if (!only || only === 'batch') await clientSize();
if (!only || ['warm', 'import', 'partitions', 'login', 'changes', 'contention', 'engine', 'stock', 'sync', 'upserts', 'webhooks', 'batch', 'lists'].includes(only)) {
  // One DynamoDB Local, in memory, for both: the data layer keeps one client per process.
  const dynamo = await startDynamoDbLocal();
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  try {
    if (!only || only === 'warm') {
      await warmLatency();
      await quotaCost();
    }
    if (!only || only === 'login') {
      if (only) await (await import('../../lib/local/setup.js')).setUpTable();
      await checkLoginTimings();
    }
    if (!only || only === 'changes') {
      if (only) await (await import('../../lib/local/setup.js')).setUpTable();
      await changeCosts();
      await webhookDelay();
      // Last: from here on the placer runs, and readers leave placing to it.
      await feedInBackground();
    }
    if (!only || only === 'import') await importBenchmark(dynamo.endpoint);
    if (!only || only === 'partitions') await partitionsBenchmark(dynamo.endpoint);
    if (!only || only === 'contention') await contentionBenchmark(dynamo.endpoint);
    if (!only || only === 'engine') await engineBenchmark(dynamo.endpoint);
    if (!only || only === 'stock') await stockBenchmark(dynamo.endpoint);
    if (!only || only === 'sync') await stockSyncBenchmark(dynamo.endpoint);
    if (!only || only === 'upserts') await competingUpsertsBenchmark(dynamo.endpoint);
    if (!only || only === 'webhooks') await webhooksAtScale();
    if (!only || only === 'batch') {
      if (only) await (await import('../../lib/local/setup.js')).setUpTable();
      await batchBenchmark(await signedCaller('bench batch'));
    }
    if (!only || only === 'lists') {
      if (only) await (await import('../../lib/local/setup.js')).setUpTable();
      await listsBenchmark(await signedCaller('bench lists'));
    }
  } finally {
    await dynamo.stop();
  }
}
if (!only || only === 'crash') await deliveriesAfterCrashes();
if (!only || only === 'powertools') await powertoolsMetricsCost();
