/**
 * The change feed kept up in the background (docs/changes-events-webhooks.md): its placer (lib/db/feed.ts
 * `runPlacer`, run by `npm start`'s loop and on AWS by the table's stream and a schedule) places
 * what is pending oldest first, one placer at a time; readers rely on it while it is heard of, and
 * place themselves only when it is silent; a subscription made during a backlog gets exactly the
 * changes committed after its answer; changes and feed items are kept as long as the store says.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { changesOf, historyPartition, PENDING_PARTITIONS, pendingPartitionKey, retentionSeconds, StoredMarker } from '../lib/db/changes.js';
import { FEED_ITEM_PREFIX, PLACED_PER_ITEM, PLACER_SILENT_MS, runPlacer, useStoreRetention } from '../lib/db/feed.js';
import { queryAll } from '../lib/db/items.js';
import { runWebhooksOnce } from '../lib/webhooks/worker.js';
import { get, post, put } from './support/api.js';
import { cursorNow, followChanges, type ChangeRow } from './support/changes.js';
import { createProduct, uniqueRef } from './support/fixtures.js';
import { productsWrittenDirectly } from './support/backlog.js';
import { useReceiver } from './support/receiver.js';

process.env.STORE_WEBHOOKS_ALLOW_LOOPBACK = '1';
const receiver = useReceiver();
afterEach(() => vi.useRealTimers());

/** Runs the placer until nothing is pending: what the background loop does, at once. */
async function placeAll(): Promise<void> {
  for (;;) {
    const run = await runPlacer(Date.now() + 60_000);
    if (run.held && !run.behind) return;
  }
}

/** Every marker of a pending change, whatever its partition. */
const pendingMarkers = async () =>
  (
    await Promise.all(
      Array.from({ length: PENDING_PARTITIONS }, (_, shard) =>
        queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pendingPartitionKey(shard) }, ConsistentRead: true }),
      ),
    )
  )
    .flat()
    .map((item) => StoredMarker.parse(item));

/** The products created, by id (their default sale elements, created with them, aside). */
const created = (changes: ChangeRow[]) => changes.filter((change) => change.TYPE === 'created' && change.RESOURCE === 'product').map((change) => Number(change.ENTITY_ID));

describe('the placer', () => {
  it("places a backlog of more than ten reads' worth oldest first, one placer at a time, and readers then find it placed", async () => {
    const from = await cursorNow();
    const batches = await productsWrittenDirectly(1_000);
    const [first, second] = await Promise.all([runPlacer(Date.now() + 60_000), runPlacer(Date.now() + 60_000)]);
    // One held the lease and placed everything; the other found it held (or nothing left).
    expect(first.placed + second.placed).toBe(1_000);
    expect([first.held, second.held].filter(Boolean).length).toBeGreaterThanOrEqual(1);
    expect(Math.max(first.oldestPendingMs ?? 0, second.oldestPendingMs ?? 0)).toBeGreaterThan(0);
    // Oldest first: batch after batch (a batch is one transaction: its changes share their moment).
    const batchOf = new Map(batches.flatMap((batch, index) => batch.map((id) => [id, index] as const)));
    const order = created((await followChanges(from, '', undefined, 500)).changes).map((id) => batchOf.get(id)!);
    expect(order).toHaveLength(1_000);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  }, 180_000);

  it('finds the changes one transaction recorded in one partition under one marker, and places each once, at most 98 a feed item', async () => {
    await placeAll();
    const from = await cursorNow();
    const transactions = await productsWrittenDirectly(200);
    // Twenty products a transaction, over eight partitions: at most eight markers each, naming every change once.
    const markers = await pendingMarkers();
    expect(markers.length).toBeLessThanOrEqual(8 * transactions.length);
    expect(markers.length).toBeLessThan(200);
    const named = markers.flatMap(changesOf).map((pending) => pending.change.pk);
    expect(named.sort()).toEqual(
      transactions
        .flat()
        .map((id) => historyPartition('product', id))
        .sort(),
    );
    await placeAll();
    expect(await pendingMarkers()).toEqual([]);
    expect(created((await followChanges(from, '', undefined, 500)).changes).sort((a, b) => a - b)).toEqual(transactions.flat().sort((a, b) => a - b));
    const feedItems = await queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `${FEED_ITEM_PREFIX}0` }, ConsistentRead: true });
    for (const item of feedItems) expect((item.entries as unknown[]).length).toBeLessThanOrEqual(PLACED_PER_ITEM);
  });

  it('runs on AWS as its function: one invocation places what is pending, and ends 5 s before its time', async () => {
    const { handler } = await import('../functions/changes/place.js');
    await productsWrittenDirectly(30);
    const started = Date.now();
    await handler({}, { getRemainingTimeInMillis: () => 60_000 - (Date.now() - started) } as never);
    expect(Date.now() - started).toBeLessThan(55_000);
    // Nothing is left pending: a second run places nothing.
    expect((await runPlacer(Date.now() + 5_000)).placed).toBe(0);
  }, 180_000);

  it('is relied on while heard of: a reader then places nothing itself, and a silent placer makes readers place again', async () => {
    await placeAll();
    const from = await cursorNow();
    const { row } = await createProduct();
    // The placer ran a moment ago: this read leaves the new change to it.
    expect(created((await followChanges(from)).changes)).toEqual([]);
    await placeAll();
    expect(created((await followChanges(from)).changes)).toEqual([row.ID]);

    const later = (await followChanges(from)).cursor;
    const another = (await createProduct()).row;
    // A placer not heard of for PLACER_SILENT_MS: readers place what is pending themselves.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + PLACER_SILENT_MS + 1_000 });
    expect(created((await followChanges(later)).changes)).toEqual([another.ID]);
  });
});

describe('a subscription made during a backlog', () => {
  it('gets exactly the changes committed after its answer, however many were still pending', async () => {
    await placeAll();
    // More pending than three of the dispatcher's rounds read (90 changes a round).
    await productsWrittenDirectly(300);
    const subscription = await post('/api/webhooks', { url: `${receiver.base}/backlog`, events: ['product.*'] });
    expect(subscription.status).toBe(201);
    const after = await createProduct({ ref: uniqueRef('AFTER') });
    // The placer and the dispatcher catch up.
    await placeAll();
    // A round reads 90 changes: enough rounds to pass the whole backlog.
    for (let round = 0; round < 6; round++) await runWebhooksOnce();
    const delivered = receiver.at('/backlog').map((request) => JSON.parse(request.body) as { ENTITY_ID: number; TYPE: string });
    expect(delivered.map((change) => [change.ENTITY_ID, change.TYPE])).toEqual([[after.row.ID, 'created']]);
  }, 180_000);
});

describe('the retention of changes', () => {
  it("is the store's: a tool takes the one its placer noted, feed items live as long as their changes, and past it a cursor is 410 with nothing retained skipped", async () => {
    const kept = process.env.STORE_CHANGE_RETENTION_DAYS;
    try {
      // The store keeps changes 30 days: its placer notes it; a tool started without it takes it.
      process.env.STORE_CHANGE_RETENTION_DAYS = '30';
      await placeAll();
      delete process.env.STORE_CHANGE_RETENTION_DAYS;
      expect(retentionSeconds()).toBe(365 * 86_400);
      await useStoreRetention();
      expect(retentionSeconds()).toBe(30 * 86_400);

      const start = await cursorNow();
      const old = (await createProduct()).row;
      await placeAll();
      const { cursor } = await followChanges(start);
      expect(created((await followChanges(start)).changes)).toEqual([old.ID]);
      // 31 days later: what was before `cursor` is past the retention, what comes after is kept.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 31 * 86_400_000 });
      const gone = await get(`/api/changes?cursor=${encodeURIComponent(start)}`);
      expect(gone.status, gone.text).toBe(410);
      expect((await put(`/api/products/${old.ID}`, { price: 3 })).status).toBe(204);
      const fresh = (await createProduct()).row;
      const { changes } = await followChanges(cursor);
      const ofProducts = changes.filter((change) => change.RESOURCE === 'product');
      expect(ofProducts.map((change) => `${change.ENTITY_ID} ${change.TYPE}`)).toEqual([`${old.ID} updated`, `${fresh.ID} created`]);
    } finally {
      if (kept === undefined) delete process.env.STORE_CHANGE_RETENTION_DAYS;
      else process.env.STORE_CHANGE_RETENTION_DAYS = kept;
    }
  });
});
