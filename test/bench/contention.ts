/**
 * BENCH_ONLY=contention: writes of one kind under DynamoDB's transaction conflicts (docs/conventions.md).
 * Two `npm start`s on one DynamoDB Local, each with its own table: one straight on the emulator,
 * one with STORE_LOCAL_CONFLICTS=1 (lib/local/conflict-proxy.ts: transactions refused as DynamoDB
 * refuses them). 16 clients over HTTP create, update and delete products on each, in alternating
 * slices (so that the machine's drift falls on both alike), 20 s each in all. For each: creates a
 * second, the latency of each operation (p50, p99), every status, and whether the change feed holds
 * each committed write exactly once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { signBody } from '../../lib/api-keys/signature.js';
import { javaListeningOn } from './process-cpu.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const SECONDS = Number(process.env.BENCH_CONTENTION_SECONDS ?? 20);
const SLICES = 4;

type Operation = 'create' | 'update' | 'delete';

export interface Server {
  name: string;
  base: string;
  child: ChildProcess;
  /** The process of the DynamoDB Local it writes to (for the CPU a write costs there). */
  dynamodb: number | undefined;
  key: { apiKey: string; secureKey: string };
  latencies: Record<Operation, number[]>;
  statuses: Record<Operation, Map<number, number>>;
  live: number[];
  /** Writes answered 201/204: each must be in the feed once. */
  committed: number;
  elapsedMs: number;
  /** What npm start says as it stops (the conflicts it met, with STORE_LOCAL_CONFLICTS=1). */
  stopped: Promise<string>;
}

export function startServer(name: string, dynamoEndpoint: string, env: Record<string, string>): Promise<Server> {
  const key = { apiKey: randomBytes(13).toString('hex').slice(0, 25).toUpperCase(), secureKey: randomBytes(24).toString('hex') };
  const dataDir = mkdtempSync(path.join(tmpdir(), 'store-api-contention-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/local/start.ts'], {
    env: {
      ...process.env,
      PORT: '0',
      DATA_DIR: dataDir,
      DYNAMODB_ENDPOINT: dynamoEndpoint,
      STORE_TABLE_NAME: `contention-${name}`,
      STORE_BOOTSTRAP_API_KEY: `${key.apiKey}:${key.secureKey}`,
      STORE_LOG_LEVEL: 'silent',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  return new Promise((resolve, reject) => {
    let output = '';
    const listening = (chunk: Buffer) => {
      output += chunk;
      const base = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (!base) return;
      child.stdout?.off('data', listening);
      // Its last lines only: a server asked for its request lines (the sync bench) writes megabytes.
      let last = '';
      child.stdout?.on('data', (more: Buffer) => (last = (last + more.toString()).slice(-16_000)));
      const stopped = new Promise<string>((done) => child.on('exit', () => done(last)));
      const operations = (): Record<Operation, never[]> => ({ create: [], update: [], delete: [] });
      resolve({
        name,
        base,
        child,
        dynamodb: javaListeningOn(new URL(dynamoEndpoint).port),
        key,
        latencies: operations(),
        statuses: { create: new Map(), update: new Map(), delete: new Map() },
        live: [],
        committed: 0,
        elapsedMs: 0,
        stopped,
      });
    };
    child.stdout?.on('data', listening);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk));
    child.on('exit', (code) => reject(new Error(`npm start (${name}) exited with ${code}: ${output}`)));
  });
}

export async function call(server: Server, method: string, url: string, body?: unknown): Promise<{ status: number; body: string; headers: Headers }> {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const response = await fetch(`${server.base}${url}${url.includes('?') ? '&' : '?'}sign=${signBody(server.key.secureKey, raw)}`, {
    method,
    headers: { authorization: `Token ${server.key.apiKey}`, ...(raw ? { 'content-type': 'application/json' } : {}) },
    ...(raw ? { body: raw } : {}),
  });
  return { status: response.status, body: await response.text(), headers: response.headers };
}

let sequence = 0;

/** One client's step: a create, an update of any live product, and every third step a delete. */
async function step(server: Server): Promise<void> {
  const timed = async (operation: Operation, method: string, url: string, body?: unknown) => {
    const started = performance.now();
    const answer = await call(server, method, url, body);
    server.latencies[operation].push(performance.now() - started);
    server.statuses[operation].set(answer.status, (server.statuses[operation].get(answer.status) ?? 0) + 1);
    if (answer.status === 201 || answer.status === 204) server.committed++;
    return answer;
  };
  const n = ++sequence;
  const created = await timed('create', 'POST', '/api/products', { ref: `CONTENTION-${n}`, default_category: 0, price: '9.99', currency: 1, tax_rule: 1, locale: 'en_US', title: 'Contention' });
  if (created.status === 201) server.live.push((JSON.parse(created.body) as Array<{ ID: number }>)[0]!.ID);
  const some = server.live[Math.floor(Math.random() * server.live.length)];
  // A price no step sent before: an update to what the product holds already changes nothing, records no change, and would not be a write the feed holds.
  if (some !== undefined) await timed('update', 'PUT', `/api/products/${some}`, { price: String(n) });
  if (n % 3 === 0 && server.live.length > CLIENTS) {
    const [gone] = server.live.splice(Math.floor(Math.random() * server.live.length), 1);
    await timed('delete', 'DELETE', `/api/products/${gone}`);
  }
}

async function slice(server: Server, ms: number): Promise<void> {
  const started = performance.now();
  const until = Date.now() + ms;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (Date.now() < until) await step(server);
    }),
  );
  server.elapsedMs += performance.now() - started;
}

/** The feed's position now for `resource`'s changes (a read places what is pending first: after every change so far). */
export async function feedNow(server: Server, resource: string): Promise<string> {
  await call(server, 'GET', `/api/changes?resource=${resource}&limit=1`);
  const answer = await call(server, 'GET', `/api/changes?resource=${resource}&cursor=now`);
  if (answer.status !== 200) throw new Error(`the feed answered ${answer.status}: ${answer.body}`);
  return answer.headers.get('x-next-cursor')!;
}

/**
 * Follows `resource`'s changes from `cursor` to the end of the feed, again while fewer than `count`
 * were read and `timeoutMs` has not passed (npm start's placer runs every 500 ms, and readers leave
 * placing to it): how many it read, and how many distinct (record, type, version).
 */
export async function followFeed(server: Server, cursor: string, resource: string, count: number, timeoutMs: number): Promise<{ changes: number; distinct: number }> {
  const seen = new Set<string>();
  let changes = 0;
  const until = Date.now() + timeoutMs;
  for (;;) {
    const page = await call(server, 'GET', `/api/changes?resource=${resource}&limit=500&cursor=${encodeURIComponent(cursor)}`);
    if (page.status !== 200) throw new Error(`the feed answered ${page.status}`);
    const rows = JSON.parse(page.body) as Array<{ ENTITY_ID: number; TYPE: string; VERSION: number }>;
    cursor = page.headers.get('x-next-cursor')!;
    changes += rows.length;
    for (const row of rows) seen.add(`${row.ENTITY_ID}#${row.TYPE}#${row.VERSION}`);
    if (rows.length) continue;
    if (changes >= count || Date.now() > until) return { changes, distinct: seen.size };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]! : NaN;
};

export async function contentionBenchmark(dynamoEndpoint: string): Promise<void> {
  const servers = await Promise.all([startServer('plain', dynamoEndpoint, {}), startServer('conflicts', dynamoEndpoint, { STORE_LOCAL_CONFLICTS: '1' })]);
  try {
    const cursors = await Promise.all(servers.map((server) => feedNow(server, 'product')));
    for (let i = 0; i < SLICES; i++) for (const server of servers) await slice(server, (SECONDS * 1000) / SLICES);

    console.log(`\ncontention: ${CLIENTS} clients × ${SECONDS} s creating, updating and deleting products through npm start, in ${SLICES} alternating slices`);
    console.log(
      'DynamoDB'.padEnd(12),
      'creates/s'.padStart(10),
      'create p50/p99'.padStart(16),
      'update p50/p99'.padStart(16),
      'delete p50/p99'.padStart(16),
      '  statuses (create | update | delete)',
      '  feed',
    );
    const rates: number[] = [];
    for (const [i, server] of servers.entries()) {
      const creates = server.statuses.create.get(201) ?? 0;
      const rate = creates / (server.elapsedMs / 1000);
      rates.push(rate);
      const latency = (operation: Operation) => `${percentile(server.latencies[operation], 50).toFixed(0)}/${percentile(server.latencies[operation], 99).toFixed(0)} ms`;
      const statuses = (['create', 'update', 'delete'] as const)
        .map((operation) =>
          [...server.statuses[operation]]
            .sort(([a], [b]) => a - b)
            .map(([status, count]) => `${count}×${status}`)
            .join(' '),
        )
        .join(' | ');
      const feed = await followFeed(server, cursors[i]!, 'product', server.committed, 10_000);
      const exact = feed.changes === server.committed && feed.distinct === feed.changes ? 'exact' : `NOT EXACT (${feed.changes} changes, ${feed.distinct} distinct, ${server.committed} writes)`;
      console.log(
        server.name.padEnd(12),
        rate.toFixed(1).padStart(10),
        latency('create').padStart(16),
        latency('update').padStart(16),
        latency('delete').padStart(16),
        `  ${statuses}`,
        `  ${exact} (${feed.changes})`,
      );
    }
    console.log(`creates/s with DynamoDB's conflicts against without: ${(rates[1]! / rates[0]!).toFixed(2)}×`);
  } finally {
    for (const server of servers) server.child.kill('SIGTERM');
  }
  const met = /DynamoDB's conflicts met: .*/.exec(await servers[1]!.stopped)?.[0];
  if (met) console.log(`${met} (each tried again)`);
}
