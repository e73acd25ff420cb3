/**
 * Stock takes that no concurrent taker can lose (ARCHITECTURE.md, "Product sale elements"). A take
 * of one sale element is one UpdateItem (lib/db/logged-add.ts `addLogged`): it adds to the stock on
 * condition that the stock stays at or above 0, bumps the version, and appends itself to the
 * element's log of takes (who, when, how much). Then its change is recorded under its version, as
 * every write's is (changes.ts), and the log trimmed (`recordLog`): the versions of the log's takes
 * are the item's last ones, their stocks the item's less the takes after each, and their times each
 * no earlier than the one before, from the item's `updatedAt` (the last change recorded), whichever
 * container's clock took them.
 *
 * A taker that stops before its take is recorded leaves it in the log: the next take of the element
 * records it, and so does every other write of it, which finds the log not empty (its replace
 * requires it empty) and records it before it plans (the reads for a write: `readSettled`,
 * `readSaleElementsOf`).
 */
import { Conflict, Contended, NotFound, VersionMismatch, WriteConflict } from '../db/errors.js';
import { readItem, type Item } from '../db/items.js';
import { addLogged, recordLog } from '../db/logged-add.js';
import { changeTime, recentlyRecorded } from '../db/changes.js';
import { stampWrite, type WriteStamp } from '../db/stamp.js';
import { formatMicros, storedMicros } from '../money.js';
import { readShards, sumOf } from '../db/sharded-count.js';
import { SALE_ELEMENT_CHANGES, saleElementCount, saleElements, type ProductSaleElements, type SaleElement, type StoredTake } from './sale-elements.js';

/** The most takes a log holds before a taker records it first: one recording transaction holds them all. */
const MAX_PENDING_TAKES = 64;
/** Times a taker finds the log full, records it and takes again, before it gives up. */
const FULL_LOG_ROUNDS = 5;

const iso = (at: number) => new Date(at).toISOString();

/** What a take comes to: its answer; or, for an element stored before stocks were numbers, none, for the caller to change it in a transaction. */
export type TakeOutcome<T> = { taken: T } | { storedAsText: true };

/**
 * Adds `delta` (millionths, signed, not 0) to the stock of sale element `id` (at `expectedVersion`
 * when one is given), records the change, and answers what `answer` makes of the element at the
 * take's version. A take that would leave less than 0 is a 409 naming what is left (`field`), and
 * writes nothing.
 */
export async function takeStock<T>(id: number, delta: bigint, expectedVersion: number | undefined, field: string, answer: (taken: SaleElement) => Promise<T>): Promise<TakeOutcome<T>> {
  const stamp = stampWrite();
  const key = saleElements.key(id);
  for (let round = 0; ; round++) {
    const outcome = await addLogged(key, {
      attribute: 'quantity',
      amount: formatMicros(delta),
      floor: formatMicros(delta < 0n ? -delta : 0n),
      log: 'takes',
      // A new id for each attempt after one whose answer was lost (lib/db/logged-add.ts).
      entry: (): StoredTake => ({ id: stamp.newId(), delta: formatMicros(delta), at: stamp.at, apiKey: stamp.actor.apiKey, requestId: stamp.actor.requestId }),
      maxEntries: MAX_PENDING_TAKES,
      fence: 'takeFences',
      recorded: (takeId) => recentlyRecorded(SALE_ELEMENT_CHANGES, id, takeId),
      expectedVersion,
    });
    if (outcome.added) {
      const take = outcome.entry.id;
      // Its take as the log holds it; recorded already (its answer lost, then found applied), the element as it is now.
      const taken = takesAsChanges(outcome.item).find((recorded) => recorded.take.id === take)?.after ?? saleElements.fromItem(outcome.item);
      // The answer's reads go beside the recording, and the take is done only once both are.
      const [answered, recorded] = await Promise.allSettled([answer(taken), recordTakes(outcome.item, take)]);
      if (recorded.status === 'rejected') throw recorded.reason;
      if (answered.status === 'rejected') throw answered.reason;
      return { taken: answered.value };
    }
    const found = outcome.found;
    if (!found) throw new NotFound('product sale element');
    if (expectedVersion !== undefined && found.version !== expectedVersion) throw new VersionMismatch('product sale element', expectedVersion);
    if (outcome.numberAsText) return { storedAsText: true };
    const element = saleElements.fromItem(found);
    if ((element.takes?.length ?? 0) < MAX_PENDING_TAKES) throw new Conflict(`sale element ${id} has ${element.quantity} in stock: a change of ${formatMicros(delta)} would leave less than 0`, field);
    // A full log: its takers are gone or slow. Record it, and take again.
    if (round >= FULL_LOG_ROUNDS) throw new Contended();
    await recordTakes(found, undefined);
  }
}

/** A take of the log as recorded: the element before and after it, and the stamp of its change. */
interface Recorded {
  take: StoredTake;
  before: SaleElement;
  after: SaleElement;
  stamp: WriteStamp;
}

/**
 * The takes of an element's item, oldest first, as changes: the versions are the item's last ones,
 * the stocks the item's less the takes after each, the times each no earlier than the one before,
 * from the item's `updatedAt` (the time of the last change recorded).
 */
function takesAsChanges(item: Item): Recorded[] {
  const element = saleElements.fromItem(item);
  const takes = element.takes ?? [];
  const firstVersion = element.version - takes.length + 1;
  let stock = storedMicros(element.quantity) - takes.reduce((sum, take) => sum + storedMicros(take.delta), 0n);
  let previous = element.updatedAt;
  return takes.map((take, k) => {
    const at = changeTime(previous, take.at);
    const before = { ...element, quantity: formatMicros(stock), version: firstVersion + k - 1, updatedAt: previous };
    stock += storedMicros(take.delta);
    previous = iso(at);
    const after = { ...element, quantity: formatMicros(stock), version: firstVersion + k, updatedAt: previous };
    const stamp: WriteStamp = { actor: { apiKey: take.apiKey, requestId: take.requestId }, at: take.at, now: iso(take.at), newId: () => take.id };
    return { take, before, after, stamp };
  });
}

/**
 * Records the takes of an element's item (lib/db/logged-add.ts `recordLog`): without `mine`, at
 * once; with it, once the takes before it are.
 */
async function recordTakes(read: Item, mine: string | undefined): Promise<void> {
  await recordLog(saleElements.key(saleElements.fromItem(read).id), read, {
    name: 'takes',
    mine,
    changesOf: (item) =>
      takesAsChanges(item).map(({ take, stamp, before, after }) => ({ id: take.id, steps: saleElements.recordChange(stamp, before, after), trimmedWith: { updatedAt: after.updatedAt } })),
  });
}

/**
 * A product's sale elements and their count, read together for a write (at most MAX_SALE_ELEMENTS:
 * one page). The list is an index's, which follows the table within moments: when it does not hold
 * as many as the count (read consistently), a sale element is being written, and the write reads
 * again. Takes pending in them (a taker that stopped leaves them) are recorded first, and the write
 * reads again too, since its replace requires an empty log.
 */
export async function readSaleElementsOf(productId: number): Promise<ProductSaleElements> {
  const [page, count] = await Promise.all([saleElements.list('byProduct', { order: 'id', reverse: false, where: { productId } }, { limit: 100, offset: 0 }), readShards(saleElementCount(productId))]);
  if (count !== undefined && sumOf(count) !== page.items.length) throw new WriteConflict();
  const pending = page.items.filter((element) => element.takes?.length);
  if (pending.length) {
    await Promise.all(pending.map((element) => recordPending(element.id)));
    throw new WriteConflict();
  }
  return { elements: page.items, count };
}

/** Sale elements by id (those there), read again after the takes pending in them are recorded: what a write plans from, or the import compares. */
export async function readSettled(ids: readonly number[]): Promise<SaleElement[]> {
  const found = await saleElements.readMany(ids);
  const pending = found.filter((element) => element.takes?.length);
  if (!pending.length) return found;
  await Promise.all(pending.map((element) => recordPending(element.id)));
  return saleElements.readMany(ids);
}

/** Records the takes pending in sale element `id`'s log, as read now (consistently). */
async function recordPending(id: number): Promise<void> {
  const item = await readItem(saleElements.key(id));
  if (item && (saleElements.fromItem(item).takes?.length ?? 0) > 0) await recordTakes(item, undefined);
}
