/**
 * Dispatch (CONTRACT §12): follows the change feed from the dispatcher's own cursor and, for each
 * change and each enabled subscription that takes it (made before it), queues a delivery job in the
 * subscription's live lane, in the same transaction as the cursor's move: a change is dispatched once.
 */
import type { Change } from '../db/changes.js';
import { Gone, WriteConflict } from '../db/errors.js';
import { feedEnd, follow, type FeedPage, type FeedPosition } from '../db/feed.js';
import { readItem } from '../db/items.js';
import { ABSENT, holds, put, raced, writeAtomically, type WriteStep } from '../db/transactions.js';
import { log } from '../log.js';
import { DISPATCH_CURSOR, firstDelivery, webhooks, type WebhookSubscription } from './entity.js';
import { matches } from './schema.js';

const after = (a: FeedPosition, b: FeedPosition) => a.n > b.n || (a.n === b.n && a.i > b.i);

/**
 * Whether a subscription takes a change placed at `at`: its patterns match, and the change came
 * after the subscription was made (placed after its start, and dated after its create began, so
 * that changes committed before it but placed after are not its own).
 */
const takes = (w: WebhookSubscription, change: Change, at: FeedPosition): boolean =>
  after(at, { n: w.start[0], i: w.start[1] }) && (w.startAt === undefined || Date.parse(change.date) > w.startAt) && matches(w.events, change.resource, change.type);
export const enabledSubscriptions = async (): Promise<WebhookSubscription[]> => (await webhooks.readAll()).filter((w) => w.enabled);

/** Queues the jobs of the changes placed since the last round: how many it queued, and the time of the last change it read. */
export async function dispatchChanges(subscriptions: WebhookSubscription[]): Promise<{ queued: number; lastChangeAt: number | undefined }> {
  const cursorItem = await readItem(DISPATCH_CURSOR);
  const stored = cursorItem?.position as [number, number] | undefined;
  if (subscriptions.length === 0 && stored === undefined) return { queued: 0, lastChangeAt: undefined };
  // The first round starts where the earliest subscription started.
  let position: FeedPosition = stored
    ? { n: stored[0], i: stored[1] }
    : subscriptions.map((w) => ({ n: w.start[0], i: w.start[1] })).reduce((a, b) => (after(a, b) ? b : a));
  let cursorExists = stored !== undefined;
  let page: FeedPage;
  try {
    page = await follow({ from: position, wanted: () => true, limit: 90 });
  } catch (error) {
    if (!(error instanceof Gone)) throw error;
    // Not run for longer than the changes are kept: what was between is gone; go on from the end.
    log('warn', 'webhooks: the dispatcher was behind the changes\' retention; it goes on from the newest change', {});
    page = { changes: [], positions: [], next: await feedEnd() };
  }
  // The cursor moves from where it was read (or is made, the first time): two dispatchers never both move it.
  const moveCursor = (to: FeedPosition): WriteStep =>
    put({ ...DISPATCH_CURSOR, position: [to.n, to.i] }, cursorExists ? holds('position', [position.n, position.i]) : ABSENT, raced);
  let jobs: WriteStep[] = [];
  let queued = 0;
  /** Writes the jobs so far with the cursor's move to `to`; false when another dispatcher moved it first (two `npm start` on one table). */
  const flush = async (to: FeedPosition): Promise<boolean> => {
    try {
      await writeAtomically([...jobs, moveCursor(to)]);
    } catch (error) {
      if (error instanceof WriteConflict) return false;
      throw error;
    }
    queued += jobs.length;
    jobs = [];
    position = to;
    cursorExists = true;
    return true;
  };
  const now = Date.now();
  const last = page.changes.at(-1);
  const lastChangeAt = last && Date.parse(last.date);
  for (const [k, change] of page.changes.entries()) {
    const at = page.positions[k]!;
    const takers = subscriptions.filter((w) => takes(w, change, at));
    // A transaction holds 100 steps: the cursor moves with the jobs of the changes before this one.
    if (jobs.length + takers.length > 99 && !(await flush(page.positions[k - 1]!))) return { queued, lastChangeAt };
    jobs.push(...takers.map((w) => firstDelivery(w.id, change, now)));
  }
  if (page.changes.length > 0 || after(page.next, position)) await flush(page.next);
  return { queued, lastChangeAt };
}

