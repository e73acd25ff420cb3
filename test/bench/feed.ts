/**
 * The change feed kept up in the background (docs/changes-events-webhooks.md), in-process against DynamoDB Local, with
 * the placer run as `npm start` runs it (every 500 ms):
 *   1. 16 writers updating products for 10 s, nobody placing but the placer: from each write's answer
 *      to its change in the feed (seen by an observer that reads the feed every 50 ms and, the placer
 *      being heard of, never places), p50 / p99 / max;
 *   2. a backlog of BENCH_BACKLOG changes (100 000) with no placer running (their items written
 *      straight, in batches: it is the drain that is measured), then drained by it: how long, how
 *      many a second, and whether they came oldest first.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as pause } from 'node:timers/promises';
import { productsWrittenDirectly } from '../support/backlog.js';

const WRITERS = 16;
const WRITE_SECONDS = Number(process.env.BENCH_FEED_SECONDS ?? 10);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 100_000);

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

export async function feedInBackground(): Promise<void> {
  const { runPlacer, follow, feedEnd } = await import('../../lib/db/feed.js');
  const { products } = await import('../../lib/products/entity.js');
  const { updateProduct } = await import('../../lib/products/operations.js');
  const { commit } = await import('../../lib/db/write-plan.js');
  const { changeSteps } = await import('../../lib/db/changes.js');
  const { stampWrite } = await import('../../lib/db/stamp.js');
  const { db, tableName } = await import('../../lib/db/client.js');
  const { BatchWriteCommand } = await import('@aws-sdk/lib-dynamodb');

  const create = async (count: number): Promise<number[]> => (await productsWrittenDirectly(count)).flat();

  // 1. Kept up: writers, the placer every 500 ms, an observer that only reads.
  const ids = await create(WRITERS * 4);
  let running = true;
  const placing = (async () => {
    while (running) {
      await runPlacer(Date.now() + 5_000);
      await pause(500);
    }
  })();
  await runPlacer(Date.now() + 5_000);
  const answered = new Map<string, number>();
  const seen = new Map<string, number>();
  let position = await feedEnd();
  const observing = (async () => {
    const waitingUntil = () => running || [...answered.keys()].some((key) => !seen.has(key));
    while (waitingUntil()) {
      const page = await follow({ from: position, wanted: () => true, limit: 500 });
      for (const change of page.changes) if (!seen.has(`${change.entityId}#${change.version}`)) seen.set(`${change.entityId}#${change.version}`, performance.now());
      position = page.next;
      if (page.changes.length === 0) await pause(50);
    }
  })();
  const until = Date.now() + WRITE_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, writer) => {
      for (let n = 0; Date.now() < until; n++) {
        const id = ids[(writer * 4 + (n % 4)) % ids.length]!;
        const version = (await products.read(id))!.version + 1;
        await commit(updateProduct(id, { price: BigInt(n) } as never, undefined));
        answered.set(`${id}#${version}`, performance.now());
      }
    }),
  );
  running = false;
  await Promise.race([observing, pause(30_000)]);
  await placing;
  const delays = [...answered].map(([key, at]) => (seen.get(key) ?? Infinity) - at);
  console.log(`\nthe feed kept up in the background: ${WRITERS} writers × ${WRITE_SECONDS} s, ${answered.size} updates, nobody placing but the placer (every 500 ms)`);
  console.log(
    "a write's answer to its change in the feed".padEnd(50),
    `p50 ${percentile(delays, 50).toFixed(0)} ms, p99 ${percentile(delays, 99).toFixed(0)} ms, max ${Math.max(...delays).toFixed(0)} ms`,
  );

  // 2. A backlog, drained oldest first: each change and its marker as a write would record them.
  const from = await feedEnd();
  const started = performance.now();
  const items = Array.from({ length: BACKLOG }, (_, i) => changeSteps(stampWrite(), 'product', ids[i % ids.length]!, 'updated', 1_000_000 + i, [])).flatMap((steps) =>
    steps.map((step) => step.item.Put!.Item!),
  );
  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, i) => items.slice(i * 25, i * 25 + 25));
  await Promise.all(
    Array.from({ length: 4 }, async (_, lane) => {
      for (let i = lane; i < batches.length; i += 4) {
        let pending: Record<string, Array<{ PutRequest: { Item: Record<string, unknown> } }>> | undefined = { [tableName()]: batches[i]!.map((Item) => ({ PutRequest: { Item } })) };
        while (pending && Object.keys(pending).length) pending = (await db().send(new BatchWriteCommand({ RequestItems: pending }))).UnprocessedItems as typeof pending;
      }
    }),
  );
  const written = performance.now() - started;
  const draining = performance.now();
  let placed = 0;
  for (let run = await runPlacer(Date.now() + 600_000); run.placed > 0 || !run.held; run = await runPlacer(Date.now() + 600_000)) placed += run.placed;
  const drained = performance.now() - draining;
  let at = from;
  let last = '';
  let inOrder = true;
  let read = 0;
  for (;;) {
    const page = await follow({ from: at, wanted: () => true, limit: 500 });
    if (page.changes.length === 0) break;
    for (const change of page.changes) {
      inOrder &&= change.date >= last;
      last = change.date;
    }
    read += page.changes.length;
    at = page.next;
  }
  console.log(
    `a backlog of ${BACKLOG} changes (written in ${(written / 1000).toFixed(1)} s)`.padEnd(50),
    `drained in ${(drained / 1000).toFixed(1)} s (${Math.round(placed / (drained / 1000))}/s), ${read} in the feed, ${inOrder ? 'oldest first' : 'NOT oldest first'}`,
  );
}
