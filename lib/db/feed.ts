/**
 * The change feed (docs/changes-events-webhooks.md): every recorded change (changes.ts) in the order the feed learned
 * of it. Writes never touch the feed; a reader places what is pending before it reads:
 *
 *   CHANGES#FEED / TAIL                 the number of the last feed item
 *   CHANGES#FEED#<n/1000> / <n>         feed item n: references to up to 98 changes, in their order
 *
 * Placing (`placePending`) reads the heads of the eight marker partitions consistently and takes the
 * oldest markers of all (a marker's key starts with its oldest change's time), as many as their
 * changes fit a feed item, then in one transaction
 * writes feed item n+1 on condition that the tail is still n, moves the tail, and deletes each marker
 * it placed on condition that it is still there. Two readers placing at once: one transaction wins,
 * the other is cancelled whole and reads again, so a change is placed once. Feed items are numbered
 * without gaps and each is written only after the one before it committed, so a reader that sees
 * item n+1 sees every item before it: following the feed never skips. A write that commits late (its
 * request gave up waiting) leaves its marker late, and is placed after everything already placed:
 * after every cursor handed out so far. One record's markers sit in one partition, sorted by version,
 * and a later version commits only after the earlier one did (its condition is on that version), so
 * they are placed in version order.
 */
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import {
  CHANGES_A_MARKER,
  changeOf,
  changesOf,
  entityOfHistory,
  historyPartition,
  PENDING_PARTITIONS,
  pendingPartitionKey,
  retentionSeconds,
  StoredChange,
  StoredMarker,
  type Change,
  type Marker,
  type PendingChange,
} from './changes.js';
import { Contended, Gone, WriteConflict } from './errors.js';
import { queryPage, readEach, readItem, readItems, type Item } from './items.js';
import type { Key } from './keys.js';
import { defineStored, expiresAtOf } from './stored.js';
import { table } from './table.js';
import { ABSENT, holds, put, putIf, remove, retryOnConflict, update, writeAtomically, type WriteStep } from './transactions.js';

const TAIL: Key = { pk: 'CHANGES#FEED', sk: 'TAIL' };
const BLOCK = 1000;
/** A transaction holds 100 steps: the feed item, the tail, and the markers it places (each naming one change or more). */
export const PLACED_PER_ITEM = CHANGES_A_MARKER;
/** The feed items' partitions: `CHANGES#FEED#<block>`, each item inserted once, by the placer. */
export const FEED_ITEM_PREFIX = 'CHANGES#FEED#';
const feedKey = (n: number): Key => ({ pk: `${FEED_ITEM_PREFIX}${Math.floor(n / BLOCK)}`, sk: String(n).padStart(12, '0') });

/** A change as the feed refers to it: its resource (`r`), and its item's key (`p`, `s`). */
const StoredEntry = v.object({ r: v.string(), p: v.string(), s: v.string() });
type Entry = v.InferOutput<typeof StoredEntry>;

/** A feed item: its number and the changes it names, in order; it expires with the last of them. */
const StoredFeedItem = defineStored('feed item', { n: v.number(), entries: v.array(StoredEntry) });
/** The feed's tail: the number of its last item. */
const StoredTail = defineStored('feed tail', { n: v.number() });

/** Where a reader stands: the next entry to read is entry `i` of feed item `n`. */
export interface FeedPosition {
  n: number;
  i: number;
}

const tailOf = (item: Item | undefined): number => (item ? StoredTail.parse(item).n : 0);

/**
 * What one round places: the oldest markers, whatever their partition, as many as their changes fit
 * one feed item, and those changes in order. Each partition's head is sorted by time, so the first
 * markers of all the heads merged are the oldest pending (a marker names at most PLACED_PER_ITEM
 * changes, so the first always fits). A record's changes (one partition) are then put in version
 * order, should two containers' clocks disagree.
 */
async function oldestPending(): Promise<{ markers: Marker[]; changes: PendingChange[] }> {
  const heads = await Promise.all(
    Array.from(
      { length: PENDING_PARTITIONS },
      async (_, shard) =>
        (await queryPage({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pendingPartitionKey(shard) }, ConsistentRead: true, Limit: PLACED_PER_ITEM })).items,
    ),
  );
  const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const markers: Marker[] = [];
  let named = 0;
  for (const marker of heads
    .flat()
    .map((item) => StoredMarker.parse(item))
    .sort((a, b) => byKey(a.sk, b.sk))) {
    named += 1 + marker.others.length;
    if (named > PLACED_PER_ITEM) break;
    markers.push(marker);
  }
  const oldest = markers.flatMap(changesOf);
  // The same places, each record's changes in the order of its versions.
  const recordOf = (pending: PendingChange) => pending.change.pk;
  const versions = new Map<string, PendingChange[]>();
  for (const pending of oldest) versions.set(recordOf(pending), [...(versions.get(recordOf(pending)) ?? []), pending]);
  for (const changes of versions.values()) changes.sort((a, b) => byKey(a.change.sk, b.change.sk));
  return { markers, changes: oldest.map((pending) => versions.get(recordOf(pending))?.shift() ?? pending) };
}

/** The time a marker's key starts with: when its oldest change happened (epoch ms). */
const markerTime = (marker: Marker): number => Number(marker.sk.split('#')[0]);

/**
 * One round of placing: how many changes it placed, the tail after it, and the time of the oldest
 * change pending when it began. Cancelled by a concurrent placer: WriteConflict. `knownTail`: the
 * tail as the caller's previous round left it, not read again.
 */
async function placeOnce(knownTail: number | undefined): Promise<{ placed: number; tail: number; oldestAt: number | undefined; newestAt: number | undefined }> {
  const [{ markers, changes }, tail] = await Promise.all([oldestPending(), knownTail ?? readItem(TAIL).then(tailOf)]);
  if (markers.length === 0) return { placed: 0, tail, oldestAt: undefined, newestAt: undefined };
  const n = tail + 1;
  const entries: Entry[] = changes.map((pending) => ({ r: pending.resource, p: pending.change.pk, s: pending.change.sk }));
  // A feed item lives as long as the last of its changes: it never names only changes that are gone, nor outlives none.
  const expiresAt = Math.max(...changes.map((pending) => pending.changeExpiresAt ?? Math.floor(Date.now() / 1000) + retentionSeconds()));
  const steps: WriteStep[] = [
    put({ ...feedKey(n), n, entries, [table.ttlAttribute]: expiresAt }, ABSENT, () => new WriteConflict()),
    tail === 0
      ? put({ ...TAIL, n }, ABSENT, () => new WriteConflict())
      : update(TAIL, { update: 'SET n = :next', condition: 'n = :tail', values: { ':next': n, ':tail': tail } }, () => new WriteConflict()),
    ...markers.map((marker) => remove({ pk: marker.pk, sk: marker.sk }, holds('sk', marker.sk), () => new WriteConflict())),
  ];
  await writeAtomically(steps);
  const times = markers.map(markerTime).filter(Number.isFinite);
  return { placed: changes.length, tail: n, oldestAt: Math.min(...times), newestAt: Math.max(...times) };
}

/**
 * Places every change that is pending now into the feed (a bounded number of rounds per call, so
 * that a reader's request stays within its budget; what is left is placed by the next reader).
 * Gives back the feed's tail as it last saw it, so that the read that follows need not ask again
 * (a tail moved since only means a later read sees more); undefined when other placers kept winning.
 */
/**
 * One round, tried again while a concurrent placer cancels it. The tail the previous round wrote is
 * taken as it is: only a cancelled attempt (the tail moved meanwhile) reads it again.
 */
function placeRound(knownTail: number | undefined): ReturnType<typeof placeOnce> {
  let tail = knownTail;
  return retryOnConflict(() => {
    const known = tail;
    tail = undefined;
    return placeOnce(known);
  }, 5);
}

async function placePending(rounds = 10): Promise<number | undefined> {
  let tail: number | undefined;
  try {
    for (let round = 0; round < rounds; round++) {
      const outcome = await placeRound(tail);
      tail = outcome.tail;
      if (outcome.placed === 0) return tail;
    }
    return tail;
  } catch (error) {
    // Other readers kept winning: they are placing what is pending, and this read stays correct
    // without it (what it did not place comes after the position it answers).
    if (!(error instanceof Contended)) throw error;
    return undefined;
  }
}

/**
 * The feed's placer: one at a time, under a lease (`CHANGES#FEED / PLACER`), which it renews as it
 * goes and leaves when done, noting when it last ran (its heartbeat). Readers rely on it while its
 * heartbeat is recent, and place themselves only when it is not (`follow`): so placers do not race
 * one another for the tail on every read.
 */
const PLACER: Key = { pk: 'CHANGES#FEED', sk: 'PLACER' };
/** The placer's lease as readers read it: when it was last heard of, and the retention it keeps changes for. */
const StoredPlacer = defineStored('feed placer', { heartbeatAt: v.optional(v.number(), 0), retentionSeconds: v.optional(v.number()) });
/**
 * A lease not renewed for this long is free again: a placer that died (a killed `npm start`, a Lambda
 * killed at its timeout) holds up the feed no longer than this. It is renewed after every round, and
 * a round that outlasts it only lets a second placer work beside it, which placing allows.
 */
const LEASE_MS = 5_000;
/** A placer not heard of for this long is not relied on: readers place what is pending (a fallback). */
export const PLACER_SILENT_MS = 90_000;

/** Takes (or renews) the placer's lease for `owner`: false when another placer holds it. */
async function holdLease(owner: string, leaseUntil: number): Promise<boolean> {
  const now = Date.now();
  // With the store's retention, for the tools that write changes (`useStoreRetention`).
  const lease = { ...PLACER, owner, leaseUntil, heartbeatAt: now, retentionSeconds: retentionSeconds() };
  const free = { expression: 'attribute_not_exists(pk) OR leaseUntil < :now OR #owner = :owner', names: { '#owner': 'owner' }, values: { ':now': now, ':owner': owner } };
  try {
    return (await putIf(lease, free)).written;
  } catch (error) {
    // A reader placing in its stead holds the item in a transaction: another placer, for the moment.
    if (error instanceof WriteConflict) return false;
    throw error;
  }
}

/** What a run of the placer did. */
export interface PlacerRun {
  /** Whether it held the lease (else another placer was at work, and it did nothing). */
  held: boolean;
  placed: number;
  /** How old the oldest change pending was when it began (undefined: none was). */
  oldestPendingMs: number | undefined;
  /** When the newest change it placed happened (epoch ms). */
  lastPlacedAt: number | undefined;
  /** Whether it stopped at its deadline with changes still pending. */
  behind: boolean;
}

/**
 * Places every pending change, oldest first, as the feed's one placer, until none is left or `until`
 * (epoch ms). `owner` names the placer: a process that is the same placer from one run to the next
 * (`npm start` on its data dir) passes the same one, so that once restarted after a crash it takes
 * over its own lease at once instead of waiting for it to end.
 */
export async function runPlacer(until: number, owner: string = randomUUID()): Promise<PlacerRun> {
  if (!(await holdLease(owner, Date.now() + LEASE_MS))) return { held: false, placed: 0, oldestPendingMs: undefined, lastPlacedAt: undefined, behind: false };
  const run: PlacerRun = { held: true, placed: 0, oldestPendingMs: undefined, lastPlacedAt: undefined, behind: false };
  let tail: number | undefined;
  try {
    for (;;) {
      if (Date.now() >= until) {
        run.behind = true;
        break;
      }
      const round = await placeRound(tail);
      tail = round.tail;
      if (run.oldestPendingMs === undefined && round.oldestAt !== undefined) run.oldestPendingMs = Math.max(0, Date.now() - round.oldestAt);
      if (round.placed === 0) break;
      run.placed += round.placed;
      run.lastPlacedAt = Math.max(run.lastPlacedAt ?? 0, round.newestAt ?? 0) || undefined;
      if (!(await holdLease(owner, Date.now() + LEASE_MS))) break;
    }
  } catch (error) {
    // Readers placing as a fallback kept winning: they placed what was pending.
    if (!(error instanceof Contended)) throw error;
  } finally {
    await holdLease(owner, 0);
  }
  return run;
}

/**
 * Makes this process keep changes as long as the store does: the retention its placer noted (the
 * stack's `-c changeRetentionDays` on AWS, `npm start`'s locally), when one did. For tools (the
 * import, `npm run api-key`, `npm run migrate`), which run outside the stack's functions.
 */
export async function useStoreRetention(): Promise<void> {
  const placer = await readItem(PLACER);
  const seconds = placer && StoredPlacer.parse(placer).retentionSeconds;
  if (seconds !== undefined && seconds > 0) process.env.STORE_CHANGE_RETENTION_DAYS = String(seconds / 86_400);
}

/** The position after every change placed so far: what `cursor=now` answers (pending changes come after it). */
export async function feedEnd(): Promise<FeedPosition> {
  return { n: tailOf(await readItem(TAIL)) + 1, i: 0 };
}

/** A page of the feed: its changes, the position after each, and the position after the last entry read. */
export interface FeedPage {
  changes: Change[];
  positions: FeedPosition[];
  next: FeedPosition;
}

/**
 * Follows the feed: up to `limit` changes after `from` (else from the oldest kept) of the resources
 * `wanted` takes. What is pending is placed by the placer; a reader places it first itself only when
 * the placer has not run for PLACER_SILENT_MS (none runs in tests' processes; one that stopped), so
 * that a change is never kept from its readers for long. Gone when `from` is past the retention.
 */
export async function follow(options: { from?: FeedPosition | undefined; wanted: (resource: string) => boolean; limit: number }): Promise<FeedPage> {
  return readFeed({ ...options, tail: await placedTail() });
}

/** The feed's tail, once what is pending is placed when no placer has been heard of for PLACER_SILENT_MS. */
async function placedTail(): Promise<number> {
  const [placer, tailItem] = await readEach([PLACER, TAIL]);
  const silent = (placer ? StoredPlacer.parse(placer).heartbeatAt : 0) < Date.now() - PLACER_SILENT_MS;
  return (silent ? await placePending() : undefined) ?? tailOf(tailItem);
}

/** How far from its date a change may be placed: a write commits within its request's budget, and readers place late markers late. */
const PLACEMENT_DISORDER_MS = 60_000;
/** Changes read a page when walking the feed by date. */
const DATED_PAGE = 250;

/**
 * The changes dated within [from, to] (epoch ms), as the feed holds them: what a lost batch of the
 * table's stream held, when all that is left of it is when its records arrived (a mapping's
 * on-failure pointer). The feed is placed oldest first, so a binary search on its items' first
 * changes finds where to begin (about 2 log2(n) reads), and it is read on until its changes are
 * dated past `to` by more than the placement's disorder.
 */
export async function changesDated(from: number, to: number): Promise<Change[]> {
  const tail = await placedTail();
  const dateOfItem = async (n: number): Promise<number> => {
    const item = await readItem(feedKey(n));
    const [first] = item ? StoredFeedItem.parse(item).entries : [];
    if (!item || expired(item, Date.now()) || !first) return -Infinity; // gone with the retention: before any date asked for
    const change = await readItem(entryKey(first));
    return change ? Date.parse(StoredChange.parse(change).date) : -Infinity;
  };
  let low = 1;
  let high = tail + 1;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if ((await dateOfItem(middle)) < from - PLACEMENT_DISORDER_MS) low = middle + 1;
    else high = middle;
  }
  const found: Change[] = [];
  let position: FeedPosition = startOf(Math.max(1, low - 1));
  for (;;) {
    const page = await readFeed({ from: position, wanted: () => true, limit: DATED_PAGE, tail }).catch((error: unknown) => {
      if (error instanceof Gone) return readFeed({ wanted: () => true, limit: DATED_PAGE, tail });
      throw error;
    });
    found.push(...page.changes.filter((change) => Date.parse(change.date) >= from && Date.parse(change.date) <= to));
    const last = page.changes.at(-1);
    if (page.next.n > tail || (last && Date.parse(last.date) > to + PLACEMENT_DISORDER_MS) || (page.next.n === position.n && page.next.i === position.i)) return found;
    position = page.next;
  }
}

const entryKey = (entry: Entry): Key => ({ pk: entry.p, sk: entry.s });

/**
 * Feed items from `n` on, in order, up to `count` of them, crossing blocks (at most `hops` queries:
 * blocks emptied by the TTL are passed over a few at a time), and the number read up to.
 */
type FeedItem = ReturnType<typeof StoredFeedItem.parse>;

async function feedItemsFrom(n: number, tail: number, count: number, hops = 20): Promise<{ items: FeedItem[]; next: number }> {
  const items: FeedItem[] = [];
  let next = n;
  for (let hop = 0; items.length < count && next <= tail && hop < hops; hop++) {
    const block = Math.floor(next / BLOCK);
    const { items: found, next: more } = await queryPage({
      KeyConditionExpression: 'pk = :pk AND sk >= :from',
      ExpressionAttributeValues: { ':pk': feedKey(next).pk, ':from': feedKey(next).sk },
      ConsistentRead: true,
      Limit: count - items.length,
    });
    items.push(...found.map((item) => StoredFeedItem.parse(item)));
    const last = items.at(-1);
    if (found.length > 0 && last) next = last.n + 1;
    if (found.length === 0 || !more) next = Math.max(next, (block + 1) * BLOCK);
  }
  return { items, next: Math.min(next, tail + 1) };
}

const expired = (item: Item, now: number) => (expiresAtOf(item) ?? Number.POSITIVE_INFINITY) <= Math.floor(now / 1000);
/** The position of feed item n's first entry. */
const startOf = (n: number): FeedPosition => ({ n, i: 0 });

/**
 * Up to `limit` changes after `from` (else from the oldest kept), of the resources `wanted` takes,
 * and the position after the last entry read (entries of other resources are passed over). A
 * position whose changes are past their retention is Gone. Reads at most `scanItems` feed items.
 */
interface FeedRead {
  from?: FeedPosition | undefined;
  wanted: (resource: string) => boolean;
  limit: number;
  /** The feed's last item, as the caller just read it. */
  tail: number;
  /** At most this many feed items are read. */
  scanItems?: number;
}

/** Up to `limit` entries after `from` of the resources `wanted` takes, each with the position after it, and the position after the last entry read. */
async function pickEntries({ from, wanted, limit, tail, scanItems = 50 }: FeedRead): Promise<{ picked: { entry: Entry; after: FeedPosition }[]; next: FeedPosition }> {
  const start = from ?? startOf(1);
  const { items, next: scannedTo } = await feedItemsFrom(start.n, tail, scanItems);
  const now = Date.now();
  // A position in the feed whose item is no longer there, or expired, is past the retention.
  const [first] = items;
  if (from && from.n <= tail && (first === undefined || first.n !== from.n || expired(first, now))) throw new Gone('retention of changes');
  const picked: { entry: Entry; after: FeedPosition }[] = [];
  let position = start;
  for (const item of items) {
    const { n, entries } = item;
    if (expired(item, now)) {
      position = startOf(n + 1);
      continue;
    }
    let i = n === position.n ? position.i : 0;
    for (; i < entries.length && picked.length < limit; i++) {
      const entry = entries[i];
      if (entry && wanted(entry.r)) picked.push({ entry, after: { n, i: i + 1 } });
    }
    // Where the next page goes on: inside this item if the page filled in it, else at the next item.
    position = i < entries.length ? { n, i } : startOf(n + 1);
    if (picked.length >= limit) break;
  }
  // A page that did not fill read everything up to `scannedTo` (blocks emptied by the TTL included).
  if (picked.length < limit && position.n < scannedTo) position = startOf(scannedTo);
  return { picked, next: position };
}

async function readFeed(read: FeedRead): Promise<FeedPage> {
  const { picked, next } = await pickEntries(read);
  const found = new Map((await readItems(picked.map(({ entry }) => entryKey(entry)))).map((item) => [`${item.pk}|${item.sk}`, item]));
  const changes: Change[] = [];
  const positions: FeedPosition[] = [];
  for (const { entry, after } of picked) {
    const key = entryKey(entry);
    const item = found.get(`${key.pk}|${key.sk}`);
    // A change past its retention (TTL) may be gone before the feed item that names it.
    if (!item) continue;
    changes.push(changeOf(item));
    positions.push(after);
  }
  return { changes, next, positions };
}

/** A record the feed names a change of. */
export interface ChangedRecord {
  resource: string;
  entityId: string;
}

/**
 * Follows the feed as `follow` does, for a reader that reads the records themselves as they are now
 * (the search index): the records changed, from the feed items alone, without reading their changes.
 */
export async function followRecords(options: { from?: FeedPosition | undefined; wanted: (resource: string) => boolean; limit: number }): Promise<{ records: ChangedRecord[]; next: FeedPosition }> {
  const { picked, next } = await pickEntries({ ...options, tail: await placedTail() });
  return { records: picked.map(({ entry }) => ({ resource: entry.r, entityId: entityOfHistory(entry.p, entry.r) })), next };
}

/** One record's changes in version order, after the change at `afterSk` (a history position). */
export async function readHistory(resource: string, entityId: string | number, afterSk: string | undefined, limit: number): Promise<{ changes: Change[]; positions: string[] }> {
  const { items: found } = await queryPage({
    KeyConditionExpression: afterSk ? 'pk = :pk AND sk > :after' : 'pk = :pk',
    ExpressionAttributeValues: { ':pk': historyPartition(resource, entityId), ...(afterSk ? { ':after': afterSk } : {}) },
    ConsistentRead: true,
    Limit: limit,
  });
  const now = Date.now();
  const items = found.filter((item) => !expired(item, now));
  return { changes: items.map(changeOf), positions: items.map((item) => String(item.sk)) };
}

/** The history position after a record's last change (its `cursor=now`). */
export async function historyEnd(resource: string, entityId: string | number): Promise<string> {
  const { items } = await queryPage({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': historyPartition(resource, entityId) },
    ConsistentRead: true,
    ScanIndexForward: false,
    Limit: 1,
  });
  return String(items[0]?.sk ?? '');
}
