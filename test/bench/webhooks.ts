/**
 * Webhooks at store scale (docs/changes-events-webhooks.md, issue 30), in-process against DynamoDB Local, with the
 * placer and the webhooks' worker run as `npm start` runs them (each every 500 ms). Receivers on
 * 127.0.0.1: 8 healthy ones (204 at once), and in the second run beside them one that never answers
 * and one that answers after 9 s, all subscribed to `product.*`. Writers update products at a steady
 * rate for BENCH_WEBHOOK_SECONDS; for each healthy delivery, the time from the write's answer to its
 * arrival. Each run on a table of its own, after one that warms up; the healthy ones alone and with
 * the two bad ones, in the order A B B A.
 */
import { createServer, type Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as pause } from 'node:timers/promises';

const HEALTHY = 8;
const WRITERS = 6;
/** Each writer's updates a second: 6 × 5 changes, × 8 healthy subscriptions = 240 deliveries a second. */
const WRITES_PER_SECOND = 5;
const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 10);

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

interface RunResult {
  p50: number;
  p99: number;
  max: number;
  deliveries: number;
  perSecond: number;
  badAttempts: { dead: number; slow: number };
}

async function oneRun(withBadOnes: boolean, seconds = SECONDS): Promise<RunResult> {
  process.env.STORE_TABLE_NAME = `bench-webhooks-${withBadOnes ? 'bad' : 'healthy'}-${Date.now()}`;
  process.env.STORE_WEBHOOKS_ALLOW_LOOPBACK = '1';
  const { setUpTable } = await import('../../lib/local/setup.js');
  const { runPlacer } = await import('../../lib/db/feed.js');
  const { WebhookWorker } = await import('../../lib/webhooks/worker.js');
  const { createWebhook } = await import('../../lib/webhooks/operations.js');
  const { updateProduct } = await import('../../lib/products/operations.js');
  const { commit } = await import('../../lib/db/write-plan.js');
  const { productsWrittenDirectly } = await import('../support/backlog.js');
  await setUpTable();

  // Arrivals at healthy receivers, by `<entity id>#<version>`.
  const arrivals: number[] = [];
  const answered = new Map<string, number>();
  const pendingArrivals: Array<{ key: string; at: number }> = [];
  const badAttempts = { dead: 0, slow: 0 };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (request.url === '/dead') return void badAttempts.dead++; // never answers
      if (request.url === '/slow') {
        badAttempts.slow++;
        setTimeout(() => response.writeHead(204).end(), 9_000).unref();
        return;
      }
      const row = JSON.parse(body) as { ENTITY_ID: number; VERSION: number };
      pendingArrivals.push({ key: `${row.ENTITY_ID}#${row.VERSION}`, at: performance.now() });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const paths = [...Array.from({ length: HEALTHY }, (_, i) => `/h${i}`), ...(withBadOnes ? ['/dead', '/slow'] : [])];
  for (const path of paths) await createWebhook({ url: `${base}${path}`, events: ['product.*'], description: path });

  const ids = (await productsWrittenDirectly(WRITERS)).flat();
  const worker = new WebhookWorker();
  // Lanes start no attempt they could not record by then: the slow receiver's backlog does not hold the run's end.
  const lanesUntil = Date.now() + (seconds + 20) * 1000;
  let running = true;
  const background = [
    (async () => {
      while (running) {
        await runPlacer(Date.now() + 5_000);
        await pause(500);
      }
    })(),
    (async () => {
      while (running) {
        await worker.tick(lanesUntil);
        await pause(500);
      }
    })(),
  ];

  const started = performance.now();
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    ids.map(async (id, writer) => {
      for (let version = 2; Date.now() < until; version++) {
        const next = performance.now() + 1000 / WRITES_PER_SECOND;
        await commit(updateProduct(id, { price: BigInt(version) } as never, undefined));
        answered.set(`${id}#${version}`, performance.now());
        await pause(Math.max(0, next - performance.now()));
      }
      return writer;
    }),
  );
  // Until every change reached every healthy receiver (or 30 s more).
  const expected = answered.size * HEALTHY;
  const deadline = Date.now() + 30_000;
  while (pendingArrivals.length < expected && Date.now() < deadline) await pause(100);
  const finished = Math.max(...pendingArrivals.map((arrival) => arrival.at));
  running = false;
  await Promise.all(background);
  // Its lanes too: the next run's table is another.
  await worker.settle();
  server.closeAllConnections();
  server.close();

  for (const { key, at } of pendingArrivals) {
    const writtenAt = answered.get(key);
    if (writtenAt !== undefined) arrivals.push(at - writtenAt);
  }
  if (pendingArrivals.length < expected) console.log(`  (only ${pendingArrivals.length} of ${expected} deliveries arrived)`);
  return {
    p50: percentile(arrivals, 50),
    p99: percentile(arrivals, 99),
    max: Math.max(...arrivals),
    deliveries: pendingArrivals.length,
    perSecond: pendingArrivals.length / ((finished - started) / 1000),
    badAttempts,
  };
}

export async function webhooksAtScale(): Promise<void> {
  const table = process.env.STORE_TABLE_NAME;
  try {
    console.log(`\nwebhooks: ${HEALTHY} healthy receivers on 127.0.0.1, ${WRITERS} writers × ${WRITES_PER_SECOND} updates/s for ${SECONDS} s, placer and worker every 500 ms (as npm start)`);
    console.log('run'.padEnd(50), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'max ms'.padStart(8), 'delivered'.padStart(10), 'per s'.padStart(7), 'dead/slow attempts'.padStart(19));
    // A first run warms the process and DynamoDB Local (JIT, the emulator's first tables); not reported.
    // Runs still get faster one after another: the kinds go healthy, bad, bad, healthy, so that the
    // drift touches both alike, and each kind's p50 is the mean of its two.
    await oneRun(false);
    const runs: Array<[string, RunResult]> = [];
    for (const [round, bad] of [
      [1, false],
      [1, true],
      [2, true],
      [2, false],
    ] as const) {
      runs.push([bad ? `with one never answering and one taking 9 s (#${round})` : `healthy receivers alone (#${round})`, await oneRun(bad)]);
    }
    for (const [name, run] of runs) {
      console.log(
        name.padEnd(50),
        run.p50.toFixed(0).padStart(8),
        run.p99.toFixed(0).padStart(8),
        run.max.toFixed(0).padStart(8),
        String(run.deliveries).padStart(10),
        run.perSecond.toFixed(0).padStart(7),
        `${run.badAttempts.dead}/${run.badAttempts.slow}`.padStart(19),
      );
    }
    const meanP50 = (bad: boolean) => runs.filter(([name]) => name.startsWith('with') === bad).reduce((sum, [, run]) => sum + run.p50, 0) / 2;
    console.log(`healthy receivers' p50 beside the bad ones / alone (means of two runs each): ${(meanP50(true) / meanP50(false)).toFixed(2)}×`);
  } finally {
    process.env.STORE_TABLE_NAME = table;
  }
}
