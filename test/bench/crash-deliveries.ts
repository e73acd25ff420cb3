/**
 * Deliveries after a crash (`BENCH_ONLY=crash`): `npm start` on a data dir of its own, two
 * subscriptions to a healthy receiver on 127.0.0.1, and 8 writers creating products; CRASHES times,
 * it is killed with SIGKILL under the writers, started again on the same data dir, and written to
 * for 3 s more. For every product answered after a restart, how long after its answer each
 * subscription first received it (the downtime does not count: those writes were answered after
 * it, and reached their receivers before the next crash): p50, p99 and the worst, per crash and over all.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { signBody } from '../../lib/api-keys/signature.js';
import { freePort } from '../../lib/local/dynamodb-local.js';
import { productWriters } from '../support/product-writers.js';

const CRASHES = Number(process.env.BENCH_CRASHES ?? 4);
const WRITERS = 8;
const SUBSCRIPTIONS = ['/first', '/second'];
const apiKey = 'BE4C4C0123456789ABCDEF012';
const secureKey = 'BE4C4C0123456789ABCDEF0123456789ABCDEF0123456789';

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

/** `npm start` on `dataDir`, listening once it resolves. */
function npmStart(dataDir: string, port: number): Promise<ChildProcessWithoutNullStreams> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !['DYNAMODB_ENDPOINT', 'STORE_TABLE_NAME', 'STORE_SECRET', 'STORE_LOG_LEVEL'].includes(name)));
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/local/start.ts'], {
    env: { ...inherited, DATA_DIR: dataDir, PORT: String(port), STORE_BOOTSTRAP_API_KEY: `${apiKey}:${secureKey}`, STORE_LOG_LEVEL: 'warn' },
  });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
      if (output.includes('listening on')) resolve(child);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${output.slice(-2000)}`)));
  });
}

async function send(port: number, method: string, url: string, body: unknown): Promise<{ status: number; body: any }> {
  const raw = JSON.stringify(body);
  const response = await fetch(`http://127.0.0.1:${port}${url}?sign=${signBody(secureKey, raw)}`, {
    method,
    headers: { Authorization: `Token ${apiKey}`, 'Content-Type': 'application/json' },
    body: raw,
  });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

export async function deliveriesAfterCrashes(): Promise<void> {
  const firstArrival = new Map<string, number>();
  const receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const key = `${request.url} ${(JSON.parse(body) as { ENTITY_ID: number }).ENTITY_ID}`;
      if (!firstArrival.has(key)) firstArrival.set(key, Date.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'store-api-bench-crash-'));
  const port = await freePort();
  let server = await npmStart(dataDir, port);
  const afterRestart: Array<Array<{ id: number; at: number }>> = [];
  try {
    for (const path of SUBSCRIPTIONS) {
      const made = await send(port, 'POST', '/api/webhooks', { url: `${base}${path}`, events: ['product.created'] });
      if (made.status !== 201) throw new Error(`subscribing answered ${made.status}`);
    }
    const delivered = (answered: ReadonlyArray<{ id: number }>) => answered.every(({ id }) => SUBSCRIPTIONS.every((path) => firstArrival.has(`${path} ${id}`)));
    let missing = 0;
    for (let crash = 1; crash <= CRASHES; crash++) {
      const before = productWriters(port, { apiKey, secureKey }, WRITERS, `before-${crash}`);
      await pause(2_000);
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGKILL');
      await exited;
      await before.stop();
      server = await npmStart(dataDir, port);
      const after = productWriters(port, { apiKey, secureKey }, WRITERS, `after-${crash}`);
      await pause(3_000);
      await after.stop();
      afterRestart.push(after.answered);
      // Caught up before the next crash: a write's delay never includes another restart's downtime.
      const until = Date.now() + 60_000;
      while (Date.now() < until && !delivered(after.answered)) await pause(100);
      missing += after.answered.filter((write) => !delivered([write])).length;
    }
    console.log(`\n## Webhook deliveries after a crash: ${CRASHES} SIGKILLs of npm start, ${WRITERS} writers, ${SUBSCRIPTIONS.length} subscriptions`);
    console.log('| after crash | writes answered | deliveries | p50 | p99 | max |');
    console.log('|---|---|---|---|---|---|');
    const all: number[] = [];
    for (const [k, answered] of afterRestart.entries()) {
      const delays = answered.flatMap(({ id, at }) => SUBSCRIPTIONS.flatMap((path) => (firstArrival.has(`${path} ${id}`) ? [firstArrival.get(`${path} ${id}`)! - at] : [])));
      all.push(...delays);
      console.log(`| ${k + 1} | ${answered.length} | ${delays.length} | ${percentile(delays, 50)} ms | ${percentile(delays, 99)} ms | ${Math.max(...delays)} ms |`);
    }
    console.log(`| all | ${afterRestart.flat().length} | ${all.length} | ${percentile(all, 50)} ms | ${percentile(all, 99)} ms | ${Math.max(...all)} ms |`);
    console.log(missing ? `${missing} writes did not reach both subscriptions within 60 s` : 'every write answered after a restart reached both subscriptions');
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
