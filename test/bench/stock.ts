/**
 * BENCH_ONLY=stock: stock that is never oversold (CONTRACT §15), under DynamoDB's transaction
 * conflicts (`npm start` with STORE_LOCAL_CONFLICTS=1: lib/local/conflict-proxy.ts). 16 clients over
 * HTTP take one from the stock of one sale element, against 16 clients each taking from its own, in
 * alternating slices: takes a second of each, the ratio, every status, and whether each stock ends at
 * its start less the takes answered 201 (none lost, none applied twice).
 */
import { performance } from 'node:perf_hooks';
import { call, startServer, type Server } from './contention.js';

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

async function slice(server: Server, run: Run, ms: number): Promise<void> {
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
}

export async function stockBenchmark(dynamoEndpoint: string): Promise<void> {
  const server = await startServer('stock', dynamoEndpoint, { STORE_LOCAL_CONFLICTS: '1' });
  try {
    const one = await stockedElement(server, 0);
    const own = await Promise.all(Array.from({ length: CLIENTS }, (_, k) => stockedElement(server, k + 1)));
    const runs: Run[] = [
      { name: 'one stock', targets: Array.from({ length: CLIENTS }, () => one), statuses: new Map(), elapsedMs: 0 },
      { name: 'own stocks', targets: own, statuses: new Map(), elapsedMs: 0 },
    ];
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
      console.log(run.name.padEnd(12), `${rates.at(-1)!.toFixed(1)} takes/s`.padStart(16), `  ${statuses}`, `  stock ${exact}`);
    }
    console.log(`takes/s from one stock against each from its own: ${(rates[0]! / rates[1]!).toFixed(2)}× (the bar: ≥ 0.5×)`);
  } finally {
    server.child.kill('SIGTERM');
    await server.stopped;
  }
}
