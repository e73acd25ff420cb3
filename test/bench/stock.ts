/**
 * BENCH_ONLY=stock: stock that is never oversold (docs/api.md), under DynamoDB's transaction
 * conflicts (`npm start` with STORE_LOCAL_CONFLICTS=1: lib/local/conflict-proxy.ts). 16 clients over
 * HTTP take one from the stock of one sale element, against 16 clients each taking from its own, in
 * alternating slices: takes a second of each, the ratio, every status, whether each stock ends at
 * its start less the takes answered 201 (none lost, none applied twice), and the CPU time a take
 * cost DynamoDB Local and npm start (its conflict proxy in it): what the attempts that lost took.
 */
import { performance } from 'node:perf_hooks';
import { call, feedNow, followFeed, startServer, type Server } from './contention.js';
import { storeTableFloor } from './engine.js';
import { cpuSince } from './process-cpu.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const SECONDS = Number(process.env.BENCH_STOCK_SECONDS ?? 16);
const SLICES = 4;
const START = 1_000_000;

interface Run {
  name: string;
  /** The sale element each client takes from. */
  targets: number[];
  statuses: Map<number, number>;
  elapsedMs: number;
  /** The CPU time DynamoDB Local and npm start spent in its slices, in ms. */
  cpu: number[];
}

/** A product's default sale element, its stock set to START. */
async function stockedElement(server: Server, n: number): Promise<number> {
  const product = await call(server, 'POST', '/api/products', { ref: `STOCK-${process.pid}-${n}`, default_category: 0, price: '5', currency: 1, tax_rule: 1, locale: 'en_US', title: 'Stocked' });
  if (product.status !== 201) throw new Error(`a product answered ${product.status}: ${product.body}`);
  const [element] = JSON.parse((await call(server, 'GET', `/api/pse/product/${(JSON.parse(product.body) as Array<{ ID: number }>)[0]!.ID}`)).body) as Array<{ ID: number }>;
  const stocked = await call(server, 'PUT', `/api/pse/${element!.ID}`, { pse: [{ quantity: START }] });
  if (stocked.status !== 201) throw new Error(`a stock answered ${stocked.status}: ${stocked.body}`);
  return element!.ID;
}

/** DynamoDB Local's and npm start's CPU time (`cpu`, ms) over `count`: what one of them cost each. */
const cpuPer = ([dynamodb = 0, server = 0]: readonly number[], count: number) => `DynamoDB Local ${(dynamodb / count).toFixed(1)} ms, npm start ${(server / count).toFixed(1)} ms`;

async function slice(server: Server, run: Run, ms: number): Promise<void> {
  const spent = cpuSince([server.dynamodb, server.child.pid]);
  const started = performance.now();
  const until = Date.now() + ms;
  await Promise.all(
    run.targets.map(async (id) => {
      while (Date.now() < until) {
        const answer = await call(server, 'PUT', `/api/pse/${id}`, { pse: [{ quantity_delta: -1 }] });
        run.statuses.set(answer.status, (run.statuses.get(answer.status) ?? 0) + 1);
      }
    }),
  );
  run.elapsedMs += performance.now() - started;
  run.cpu = spent().map((ms, k) => ms + (run.cpu[k] ?? 0));
}

export async function stockBenchmark(dynamoEndpoint: string): Promise<void> {
  const server = await startServer('stock', dynamoEndpoint, { STORE_LOCAL_CONFLICTS: '1' });
  const runs: Run[] = [];
  let said = '';
  try {
    const one = await stockedElement(server, 0);
    const own = await Promise.all(Array.from({ length: CLIENTS }, (_, k) => stockedElement(server, k + 1)));
    runs.push(
      { name: 'one stock', targets: Array.from({ length: CLIENTS }, () => one), statuses: new Map(), elapsedMs: 0, cpu: [] },
      { name: 'own stocks', targets: own, statuses: new Map(), elapsedMs: 0, cpu: [] },
    );
    for (let i = 0; i < SLICES; i++) for (const run of runs) await slice(server, run, (SECONDS * 1000) / SLICES);
    console.log(`\nstock: ${CLIENTS} clients × ${SECONDS} s taking one at a time through npm start with DynamoDB's conflicts, in ${SLICES} alternating slices`);
    const rates: number[] = [];
    for (const run of runs) {
      const taken = run.statuses.get(201) ?? 0;
      rates.push(taken / (run.elapsedMs / 1000));
      const left = await Promise.all([...new Set(run.targets)].map(async (id) => Number((JSON.parse((await call(server, 'GET', `/api/pse/${id}`)).body) as Array<{ QUANTITY: string }>)[0]!.QUANTITY)));
      const exact = left.reduce((sum, quantity) => sum + (START - quantity), 0) === taken ? 'exact' : 'NOT EXACT';
      const statuses = [...run.statuses]
        .sort(([a], [b]) => a - b)
        .map(([status, count]) => `${count}×${status}`)
        .join(' ');
      console.log(run.name.padEnd(12), `${rates.at(-1)!.toFixed(1)} takes/s`.padStart(16), `  ${statuses}`, `  stock ${exact}`, `  CPU a take: ${cpuPer(run.cpu, taken)}`);
    }
    console.log(`takes/s from one stock against each from its own: ${(rates[0]! / rates[1]!).toFixed(2)}× (the bar: ≥ 0.5×)`);
  } finally {
    server.child.kill('SIGTERM');
    said = await server.stopped;
  }
  // Whose attempts lost: writers of their own stocks meet nobody, so the conflicts are the one stock's.
  const met = /DynamoDB's conflicts met: (\d+) transactions cancelled, (\d+) single writes refused/.exec(said);
  const perTake = (count: string | undefined) => `${count}, ${(Number(count) / (runs[0]?.statuses.get(201) || 1)).toFixed(1)} a take from one stock`;
  // A take refused (its item in a recording transaction) wrote nothing, and is sent again.
  if (met) console.log(`transactions the conflict proxy cancelled: ${perTake(met[1])}; single writes it refused: ${perTake(met[2])}`);
}

const SKUS = Number(process.env.BENCH_SYNC_SKUS ?? 10_000);
/** Single PUTs are timed on a sample of the SKUs: at their rate, all 10 000 would take minutes for the same figure. */
const SINGLE_SAMPLE = Number(process.env.BENCH_SYNC_SINGLE ?? 1_000);
const ROWS_PER_BATCH = 100;
const SYNC_IN_FLIGHT = 4;

/** Runs `tasks`, SYNC_IN_FLIGHT at once. */
async function inTurns(tasks: Array<() => Promise<void>>): Promise<void> {
  const queue = [...tasks];
  await Promise.all(
    Array.from({ length: SYNC_IN_FLIGHT }, async () => {
      for (let task = queue.shift(); task; task = queue.shift()) await task();
    }),
  );
}

async function ok(answer: Promise<{ status: number; body: string }>, status: number, what: string): Promise<string> {
  const { status: got, body } = await answer;
  if (got !== status) throw new Error(`${what} answered ${got}: ${body.slice(0, 300)}`);
  return body;
}

/**
 * Sends `rows` as one batch, and the rows answered 503 (the batch's time ran out before them) again,
 * as a client does; every other row must answer one of `status`. The rows' results, in their order.
 */
async function batchUntilDone(server: Server, url: string, rows: readonly object[], status: readonly number[]): Promise<{ STATUS: number; ID: number }[]> {
  const results: { STATUS: number; ID: number }[] = [];
  let pending = rows.map((row, at) => ({ row, at }));
  while (pending.length) {
    const answered = JSON.parse(await ok(call(server, 'POST', url, { rows: pending.map(({ row }) => row) }), 200, url)) as { STATUS: number; ID: number }[];
    const again: typeof pending = [];
    for (const [k, result] of answered.entries()) {
      const sent = pending[k]!;
      if (result.STATUS === 503) again.push(sent);
      else if (!status.includes(result.STATUS)) throw new Error(`a row of ${url} answered ${JSON.stringify(result)}`);
      else results[sent.at] = result;
    }
    pending = again;
  }
  return results;
}

/** Rows in batches of ROWS_PER_BATCH, sent SYNC_IN_FLIGHT at once until every row is done. */
const inBatches = (server: Server, url: string, rows: readonly object[], status: readonly number[], each: (results: { ID: number }[]) => void = () => undefined) =>
  inTurns(
    Array.from({ length: Math.ceil(rows.length / ROWS_PER_BATCH) }, (_, b) => async () => each(await batchUntilDone(server, url, rows.slice(b * ROWS_PER_BATCH, (b + 1) * ROWS_PER_BATCH), status))),
  );

/** A request line of npm start (JSON on its stdout at `info`): its route and what it asked of DynamoDB. */
interface RequestLine {
  Route: string;
  dynamodbRequests: number;
}

/** The request lines `server` writes from now on, as they come. */
function requestLines(server: Server): RequestLine[] {
  const lines: RequestLine[] = [];
  let partial = '';
  server.child.stdout?.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString('utf8');
    const complete = text.split('\n');
    partial = complete.pop() ?? '';
    for (const line of complete) {
      const parsed = line.startsWith('{') ? (JSON.parse(line) as { message?: string } & RequestLine) : undefined;
      if (parsed?.message === 'request') lines.push(parsed);
    }
  });
  return lines;
}

/**
 * The DynamoDB calls one row of `route` made, over `lines`. (Not their capacity: DynamoDB Local
 * reports 2 units for any transaction, whatever its items.)
 */
function callsPerRow(lines: readonly RequestLine[], route: string, rows: number): string {
  const calls = lines.filter((line) => line.Route === route).reduce((total, line) => total + line.dynamodbRequests, 0);
  return `${(calls / rows).toFixed(2)} DynamoDB calls a row`;
}

/**
 * Waits until the feed holds `count` changes of sale elements after `cursor`: what a phase wrote is
 * placed, so that the next phase does not pay for the placing of this one's changes.
 */
async function placed(server: Server, cursor: string, count: number): Promise<void> {
  const { changes } = await followFeed(server, cursor, 'pse', count, 300_000);
  if (changes < count) throw new Error(`the feed placed ${changes} of ${count} changes in 5 minutes`);
}

/**
 * BENCH_ONLY=sync: an ERP's nightly stock sync of 10 000 SKUs (1 000 products, 10 sale elements each)
 * through npm start: `POST /api/pse/batch` upserts by reference, 100 rows a request (rows past a
 * batch's time sent again), against single `PUT /api/pse/{id}` (ids known: the single requests' best
 * case), SYNC_IN_FLIGHT requests in flight either way, each timed with the feed placed before it
 * (neither pays for placing the other's changes). Rows a second of each, the DynamoDB calls a row of
 * each (npm start's request lines) and the CPU time a row cost DynamoDB Local and npm start, their
 * ratio, and stocks read back. Then, npm start stopped, the floor of a batch row on the same
 * DynamoDB Local (engine.ts's `storeTableFloor`) beside a fifth of a single PUT's CPU: what 5× allows.
 */
export async function stockSyncBenchmark(dynamoEndpoint: string): Promise<void> {
  // Its request lines say what each phase's rows asked of DynamoDB.
  const server = await startServer('sync', dynamoEndpoint, { STORE_LOG_LEVEL: 'info', STORE_LOG_FORMAT: 'json' });
  const lines = requestLines(server);
  let singlePutCpu: number | undefined;
  try {
    const run = `${process.pid}`;
    // Upserts: a row sent again after a 503 whose write had landed after all finds its record.
    const products = Array.from({ length: SKUS / 10 }, (_, n) => ({
      op: 'upsert',
      ref: `SYNC-${run}-${n}`,
      default_category: 0,
      price: '5',
      currency: 1,
      tax_rule: 1,
      locale: 'en_US',
      title: 'Synced',
    }));
    const productIds: number[] = [];
    await inBatches(server, '/api/products/batch', products, [201, 204], (results) => productIds.push(...results.map((result) => result.ID)));
    // Nine variants each beside the default: the SKUs are the sale elements' references.
    const variants = productIds.flatMap((productId) =>
      Array.from({ length: 9 }, (_, v) => ({ op: 'upsert', product_id: productId, reference: `SKU-${run}-${productId}-${v}`, currency_id: 1, price: '5' })),
    );
    const beforeVariants = await feedNow(server, 'pse');
    await inBatches(server, '/api/pse/batch', variants, [201]);
    const skus: { id: number; ref: string }[] = [];
    for (const productId of productIds) {
      const rows = JSON.parse(await ok(call(server, 'GET', `/api/pse/product/${productId}`), 200, 'a product’s sale elements')) as { ID: number; REF: string }[];
      skus.push(...rows.map((row) => ({ id: row.ID, ref: row.REF })));
    }
    const stock = (n: number) => 100 + (n % 37);
    // Each timed phase starts with the feed placed: the variants' changes (their creates), then the batches'.
    await placed(server, beforeVariants, variants.length);

    const beforeBatches = await feedNow(server, 'pse');
    const batchLines = lines.length;
    let spent = cpuSince([server.dynamodb, server.child.pid]);
    let started = performance.now();
    await inBatches(
      server,
      '/api/pse/batch',
      skus.map((sku, n) => ({ op: 'upsert', reference: sku.ref, quantity: stock(n) })),
      [201],
    );
    const batchRate = skus.length / ((performance.now() - started) / 1000);
    const batchCpu = cpuPer(spent(), skus.length);
    const batchUse = callsPerRow(lines.slice(batchLines), 'pse/batch', skus.length);

    await placed(server, beforeBatches, skus.length);

    const sample = skus.slice(0, SINGLE_SAMPLE);
    const singleLines = lines.length;
    spent = cpuSince([server.dynamodb, server.child.pid]);
    started = performance.now();
    await inTurns(sample.map((sku, n) => async () => void (await ok(call(server, 'PUT', `/api/pse/${sku.id}`, { pse: [{ quantity: stock(n) + 1 }] }), 201, 'a single PUT'))));
    const singleRate = sample.length / ((performance.now() - started) / 1000);
    const singleSpent = spent();
    const singleCpu = cpuPer(singleSpent, sample.length);
    const singleUse = callsPerRow(lines.slice(singleLines), 'pse/update', sample.length);

    const checked = await Promise.all(
      [0, sample.length, skus.length - 1].map(async (n) => {
        const [row] = JSON.parse(await ok(call(server, 'GET', `/api/pse/${skus[n]!.id}`), 200, 'a synced sale element')) as { QUANTITY: string }[];
        return Number(row!.QUANTITY) === stock(n) + (n < sample.length ? 1 : 0);
      }),
    );
    console.log(`\nstock sync: ${skus.length} SKUs (${productIds.length} products × 10 sale elements) through npm start, ${SYNC_IN_FLIGHT} requests in flight`);
    console.log('POST /api/pse/batch (upsert by reference, 100 rows)'.padEnd(56), `${batchRate.toFixed(0)} rows/s`.padStart(14), `  all ${skus.length}: ${batchUse}; CPU a row: ${batchCpu}`);
    console.log('PUT /api/pse/{id} (one sale element, ids known)'.padEnd(56), `${singleRate.toFixed(0)} rows/s`.padStart(14), `  the first ${sample.length}: ${singleUse}; CPU a row: ${singleCpu}`);
    console.log(`batch rows a second against single PUTs: ${(batchRate / singleRate).toFixed(1)}× (the bar: ≥ 5×); stocks read back as sent: ${checked.every(Boolean) ? 'yes' : 'NO'}`);
    singlePutCpu = singleSpent[0]! / sample.length;
  } finally {
    server.child.kill('SIGTERM');
    await server.stopped;
  }
  // With npm start stopped, nothing else asks DynamoDB Local for anything.
  const floor = (await storeTableFloor(dynamoEndpoint)).batched.cpuMs;
  if (floor !== undefined && singlePutCpu !== undefined)
    console.log(
      `a batch row at its least on this DynamoDB Local (its 2 keys read, its record and change written: BENCH_ONLY=engine's floor): ${floor.toFixed(2)} ms of CPU; 5× a single PUT's ${singlePutCpu.toFixed(2)} ms leaves a row ${(singlePutCpu / 5).toFixed(2)} ms`,
    );
}
