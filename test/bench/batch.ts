/**
 * BENCH_ONLY=batch: 1 000 product upserts, once as 10 batches of 100 rows and once as 1 000 single
 * requests (POST, then PUT when the ref is there, as an integrator without batches syncs), each
 * with 2 requests in flight, in-process against DynamoDB Local, in one run. Rows a second for each,
 * their ratio, the p50/p99 of a batch and of a single request, and the rows answered 503 (past the
 * request's budget: DynamoDB Local commits one transaction at a time, AWS does not).
 */
import { performance } from 'node:perf_hooks';

type Caller = (method: string, url: string, body?: unknown) => Promise<{ status: number; body: string }>;

const ROWS = 1_000;
const BATCH = 100;
const IN_FLIGHT = 2;

const percentile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** Runs `tasks` with `IN_FLIGHT` at once; each task's time. */
async function inFlight(tasks: Array<() => Promise<void>>): Promise<number[]> {
  const times: number[] = [];
  const queue = [...tasks];
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let task = queue.shift(); task; task = queue.shift()) {
        const start = performance.now();
        await task();
        times.push(performance.now() - start);
      }
    }),
  );
  return times.sort((a, b) => a - b);
}

export async function batchBenchmark(call: Caller): Promise<void> {
  const product = (run: string, n: number) => ({ ref: `BATCH-${run}-${n}`, default_category: 0, price: `${n % 500}.99`, currency: 1, tax_rule: 1, locale: 'en_US', title: `Product ${n}` });
  const expect = (status: number, wanted: number[], what: string) => {
    if (!wanted.includes(status)) throw new Error(`${what} answered ${status}`);
  };
  let unavailable = 0;
  const batched = async (run: string) =>
    inFlight(
      Array.from({ length: ROWS / BATCH }, (_, b) => async () => {
        const rows = Array.from({ length: BATCH }, (_, i) => ({ op: 'upsert', ...product(run, b * BATCH + i) }));
        const answer = await call('POST', '/api/products/batch', { rows });
        expect(answer.status, [200], 'a batch');
        for (const result of JSON.parse(answer.body) as { STATUS: number }[]) {
          expect(result.STATUS, [201, 204, 503], 'a batch row');
          if (result.STATUS === 503) unavailable++;
        }
      }),
    );
  const single = async (run: string) =>
    inFlight(
      Array.from({ length: ROWS }, (_, n) => async () => {
        const input = product(run, n);
        const found = await call('GET', `/api/products?ref=${input.ref}`);
        const [existing] = JSON.parse(found.body) as { ID: number }[];
        const answer = existing ? await call('PUT', `/api/products/${existing.ID}`, input) : await call('POST', '/api/products', input);
        expect(answer.status, [201, 204], 'a single upsert');
      }),
    );

  console.log(`\nbatch writes: ${ROWS} product upserts, ${IN_FLIGHT} requests in flight, in-process (BENCH_ONLY=batch)`);
  console.log('how'.padEnd(34), 'rows/s'.padStart(8), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'total s'.padStart(8));
  const rates: Record<string, number> = {};
  // Creates first, then the same refs again (updates): both ways, each interleaved.
  for (const [pass, runs] of [
    ['create', ['a', 'b']],
    ['update', ['a', 'b']],
  ] as const) {
    for (const [how, run, work] of [
      ['batches of 100', runs[0], batched],
      ['single requests (GET + POST/PUT)', runs[1], single],
    ] as const) {
      const start = performance.now();
      const times = await work(run);
      const seconds = (performance.now() - start) / 1000;
      rates[`${pass} ${how}`] = ROWS / seconds;
      console.log(
        `${how} (${pass})`.padEnd(34),
        (ROWS / seconds).toFixed(0).padStart(8),
        percentile(times, 0.5).toFixed(1).padStart(8),
        percentile(times, 0.99).toFixed(1).padStart(8),
        seconds.toFixed(2).padStart(8),
      );
    }
  }
  console.log(`batch rows answered 503 (past the budget, to be sent again): ${unavailable}`);
  for (const pass of ['create', 'update']) {
    console.log(`${pass}: batches ÷ single requests, rows a second: ${(rates[`${pass} batches of 100`]! / rates[`${pass} single requests (GET + POST/PUT)`]!).toFixed(1)}×`);
  }
}

/**
 * The client's weight, as an integrator's bundler ships it: `@store-api/client` minified and
 * gzipped, openapi-fetch left out (it is its one dependency), and `./webhooks` alone.
 */
export async function clientSize(): Promise<void> {
  const { build } = await import('esbuild');
  const { gzipSync } = await import('node:zlib');
  console.log('\nthe client, minified (esbuild), openapi-fetch outside');
  for (const entry of ['client/src/index.ts', 'client/src/webhooks.ts']) {
    const result = await build({ entryPoints: [entry], bundle: true, minify: true, format: 'esm', platform: 'neutral', external: ['openapi-fetch'], write: false });
    const code = result.outputFiles[0]!.contents;
    console.log(entry.padEnd(28), `${(code.length / 1024).toFixed(1)} KiB min`.padStart(14), `${(gzipSync(code).length / 1024).toFixed(1)} KiB min+gzip`.padStart(20));
  }
}
