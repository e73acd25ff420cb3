/**
 * BENCH_ONLY=upserts: batches competing for the same records under DynamoDB's transaction conflicts
 * (`npm start` with STORE_LOCAL_CONFLICTS=1, its 10 s budget). Each round, 8 clients at once send a
 * batch of 25 product upserts over 50 shared refs (each ref in 4 of the batches, at another price):
 * the rows applied and those answered 503 (not applied, for the client to send again), the slowest
 * batch's time, and whether each ref ends as one product updated once by every other upsert of it.
 */
import { performance } from 'node:perf_hooks';
import { call, startServer } from './contention.js';

const ROUNDS = Number(process.env.BENCH_UPSERT_ROUNDS ?? 5);
const BATCHES = 8;
const REFS = 50;

export async function competingUpsertsBenchmark(dynamoEndpoint: string): Promise<void> {
  const server = await startServer('upserts', dynamoEndpoint, { STORE_LOCAL_CONFLICTS: '1' });
  const statuses = new Map<string, number>();
  const slowest: number[] = [];
  let wrong = 0;
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const refs = Array.from({ length: REFS }, (_, r) => `UPSERT-${process.pid}-${round}-${r}`);
      const batches = Array.from({ length: BATCHES }, (_, b) => refs.filter((_, r) => (r + b) % 2 === 0 || (r * 7 + b) % 8 === 0).slice(0, 25));
      const started = performance.now();
      const answers = await Promise.all(
        batches.map(async (batchRefs, b) => {
          const rows = batchRefs.map((ref) => ({ op: 'upsert', ref, default_category: 0, price: String(b + 1), currency: 1, tax_rule: 1, locale: 'en_US', title: `Upserted ${ref}` }));
          const answer = await call(server, 'POST', '/api/products/batch', { rows });
          return { answer, ms: performance.now() - started };
        }),
      );
      slowest.push(Math.max(...answers.map(({ ms }) => ms)));
      const applied = new Map<string, number>();
      for (const [b, { answer }] of answers.entries()) {
        const results = answer.status === 200 ? (JSON.parse(answer.body) as Array<{ INDEX: number; STATUS: number }>) : [];
        if (answer.status !== 200) statuses.set(`batch ${answer.status}`, (statuses.get(`batch ${answer.status}`) ?? 0) + 1);
        for (const result of results) {
          statuses.set(String(result.STATUS), (statuses.get(String(result.STATUS)) ?? 0) + 1);
          const ref = batches[b]![result.INDEX]!;
          if (result.STATUS === 201 || result.STATUS === 204) applied.set(ref, (applied.get(ref) ?? 0) + 1);
        }
      }
      for (const [ref, times] of applied) {
        const found = JSON.parse((await call(server, 'GET', `/api/products?ref=${ref}`)).body) as Array<{ VERSION: number }>;
        if (found.length !== 1 || found[0]!.VERSION !== times) wrong++;
      }
    }
  } finally {
    server.child.kill('SIGTERM');
    await server.stopped;
  }
  const rows = [...statuses].filter(([status]) => !status.startsWith('batch')).reduce((sum, [, n]) => sum + n, 0);
  const notApplied = statuses.get('503') ?? 0;
  slowest.sort((a, b) => a - b);
  console.log(`\nupserts: ${ROUNDS} rounds of ${BATCHES} batches × 25 upserts over ${REFS} shared refs at once, through npm start with DynamoDB's conflicts (10 s budget)`);
  console.log('  rows applied'.padEnd(50), `${rows - notApplied} of ${rows} (${((100 * (rows - notApplied)) / Math.max(1, rows)).toFixed(1)} %)`);
  console.log('  statuses'.padEnd(50), [...statuses].map(([status, n]) => `${status} × ${n}`).join(', '));
  console.log('  slowest batch of a round (median, max)'.padEnd(50), `${slowest[Math.floor(slowest.length / 2)]!.toFixed(0)} ms, ${slowest.at(-1)!.toFixed(0)} ms`);
  console.log('  refs not one product at its upserts’ version'.padEnd(50), wrong);
}
