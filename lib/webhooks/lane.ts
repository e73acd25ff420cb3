/**
 * A subscription's lane (docs/changes-events-webhooks.md: one subscription never slows another): its own share of the
 * worker and its own failure state. A lane follows the change feed from its own cursor and takes
 * what its subscription takes; beside those, the jobs of its retries that are due and then, paced,
 * of its replays. It attempts a round of them, at most LANE_CONCURRENCY at once, then records them
 * in one transaction with its cursor's move (conditioned on the cursor it read). A round takes
 * LANE_CONCURRENCY deliveries, and twice as many after a round that delivered all it took and left
 * more in the feed, up to MAX_ROUND (a lane catching up, after a crash, a burst or a slow start,
 * pays its reads and its record once for many deliveries); a failure takes it back to LANE_CONCURRENCY.
 *
 * A failure opens its breaker until that delivery's next attempt: the lane then attempts nothing, and
 * its cursor waits, until one probe (the job furthest along its schedule) is due; a delivered probe
 * closes it. It starts no attempt that could not be recorded before the worker's deadline.
 */
import { present } from '../present.js';
import { changeOf, type Change } from '../db/changes.js';
import { Gone } from '../db/errors.js';
import { feedEnd, follow, type FeedPage, type FeedPosition } from '../db/feed.js';
import { readEach, readItem, type Item } from '../db/items.js';
import type { Key } from '../db/keys.js';
import { ABSENT, holds, put, raced, type WriteStep } from '../db/transactions.js';
import { inTurns } from '../in-turns.js';
import { log } from '../log.js';
import { attemptDelivery, recordAttempts, type Attempted, type Delivery } from './attempt.js';
import { ATTEMPT_TIMEOUT_MS } from './deliver.js';
import { deliveryJobs, laneCursorKey, replayLane, retryLane, StoredJob, StoredLaneCursor, type WebhookSubscription } from './entity.js';
import { matches } from './schema.js';

/** Attempts a lane makes at once, and the deliveries of a round that has not grown. */
export const LANE_CONCURRENCY = 8;
/** The most deliveries one round takes: its record (a log entry and a job each, the cursor, a disable) fits in one transaction of 100. */
export const MAX_ROUND = 40;
/** A replay's pace, per subscription. */
export const REPLAYS_PER_SECOND = 25;
/** How long an attempt's record may take after it: an attempt starts only if both fit before the deadline. */
const RECORD_MS = 2_000;
/** Changes of the feed a lane reads at once, to find those its subscription takes. */
const FEED_READ = 100;
const CHANGE_TYPES = ['created', 'updated', 'deleted'] as const;

export interface LaneState {
  /** 0 when closed; else when the probe may go. */
  openUntil: number;
  /** The job to probe with: the one furthest along its schedule. */
  probe: Key | undefined;
  /** Replays the lane may take now (a bucket filled at REPLAYS_PER_SECOND, holding a second's worth). */
  replayTokens: number;
  refilledAt: number;
  /** Its cursor in the feed, once read, and whether its item exists. */
  cursor: { position: FeedPosition; stored: boolean } | undefined;
  /** How many deliveries its next round may take (LANE_CONCURRENCY to MAX_ROUND). */
  roundSize: number;
}

export interface LaneTally {
  attempted: number;
  delivered: number;
  failed: number;
  disabled: number;
  /** Jobs (retries, replays) taken. */
  jobs: number;
  /** When the newest change a lane took from the feed was made. */
  lastChangeAt: number | undefined;
}

export const emptyTally = (): LaneTally => ({ attempted: 0, delivered: 0, failed: 0, disabled: 0, jobs: 0, lastChangeAt: undefined });
export const closedLane = (): LaneState => ({ openUntil: 0, probe: undefined, replayTokens: REPLAYS_PER_SECOND, refilledAt: Date.now(), cursor: undefined, roundSize: LANE_CONCURRENCY });

const after = (a: FeedPosition, b: FeedPosition) => a.n > b.n || (a.n === b.n && a.i > b.i);

/**
 * Whether a subscription takes a change placed at `at`: its patterns match, and the change came
 * after the subscription was made (placed after its start, and dated after its create began, so
 * that changes committed before it but placed after are not its own).
 */
const takes = (w: WebhookSubscription, change: Change, at: FeedPosition): boolean =>
  after(at, { n: w.start[0], i: w.start[1] }) && (w.startAt === undefined || Date.parse(change.date) > w.startAt) && matches(w.events, change.resource, change.type);

/** The next changes of the feed the subscription takes, `room` at most, and where its cursor goes after them. */
async function fromFeed(webhook: WebhookSubscription, state: LaneState, room: number): Promise<{ changes: Change[]; moveTo: FeedPosition }> {
  state.cursor ??= await (async () => {
    const stored = await readItem(laneCursorKey(webhook.id));
    const position = stored && StoredLaneCursor.parse(stored).position;
    return { position: position ? { n: position[0], i: position[1] } : { n: webhook.start[0], i: webhook.start[1] }, stored: stored !== undefined };
  })();
  const from = state.cursor.position;
  if (room <= 0) return { changes: [], moveTo: from };
  let page: FeedPage;
  try {
    page = await follow({ from, wanted: (resource) => CHANGE_TYPES.some((type) => matches(webhook.events, resource, type)), limit: FEED_READ });
  } catch (error) {
    if (!(error instanceof Gone)) throw error;
    // Not run for longer than the changes are kept: what was between is gone; go on from the end.
    log('warn', "webhooks: a lane was behind the changes' retention; it goes on from the newest change", { webhookId: webhook.id });
    return { changes: [], moveTo: await feedEnd() };
  }
  const changes: Change[] = [];
  for (const [k, change] of page.changes.entries()) {
    const position = page.positions[k];
    if (!position || !takes(webhook, change, position)) continue;
    if (changes.length === room) return { changes, moveTo: page.positions[k - 1] ?? from };
    changes.push(change);
  }
  return { changes, moveTo: page.next };
}

function replaysAllowed(state: LaneState, now: number): number {
  state.replayTokens = Math.min(REPLAYS_PER_SECOND, state.replayTokens + ((now - state.refilledAt) / 1000) * REPLAYS_PER_SECOND);
  state.refilledAt = now;
  return Math.floor(state.replayTokens);
}

/** The jobs a closed lane takes: its due retries, then (room left) its replays at their pace. */
async function dueJobs(webhookId: number, state: LaneState, now: number): Promise<Item[]> {
  const retries = await deliveryJobs.due(retryLane(webhookId), now, LANE_CONCURRENCY);
  const room = Math.min(LANE_CONCURRENCY - retries.length, replaysAllowed(state, now));
  if (room <= 0) return retries;
  const replays = await deliveryJobs.due(replayLane(webhookId), now, room);
  state.replayTokens -= replays.length;
  return [...retries, ...replays];
}

/** The probe of a half-open lane: the job furthest along its schedule if due, else the oldest retry due. */
async function probeJob(webhookId: number, state: LaneState, now: number): Promise<Item | undefined> {
  const furthest = state.probe && (await readItem(state.probe));
  if (furthest && Number(furthest.dueAt) <= now) return furthest;
  return (await deliveryJobs.due(retryLane(webhookId), now, 1))[0];
}

async function deliveriesOf(due: readonly Item[]): Promise<Delivery[]> {
  const jobs = due.map((item) => StoredJob.parse(item));
  const items = await readEach(jobs.map((job) => job.changeKey));
  return jobs.map((job, k) => ({ change: items[k] && changeOf(items[k]), job }));
}

function tally(attempted: readonly Attempted[], into: LaneTally): void {
  for (const { outcome } of attempted) {
    if (outcome.kind === 'dropped') continue;
    into.attempted++;
    if (outcome.kind === 'delivered') into.delivered++;
    else into.failed++;
    if (outcome.kind === 'disabled') into.disabled++;
  }
}

/**
 * Opens the breaker after failures, until the soonest retry, and takes the rounds back to their
 * least; closes it after a delivery without failure, and doubles the next round when this one was
 * full (`full`: the feed had more).
 */
function judge(attempted: readonly Attempted[], state: LaneState, full: boolean): void {
  const failures = attempted.flatMap(({ outcome }) => (outcome.kind === 'failed' ? [outcome] : []));
  if (failures.length) {
    state.openUntil = Math.min(...failures.map((failure) => failure.nextAt));
    state.probe = failures.reduce((a, b) => (b.attempt > a.attempt ? b : a)).retry;
    state.roundSize = LANE_CONCURRENCY;
  } else if (attempted.some(({ outcome }) => outcome.kind === 'delivered')) {
    state.openUntil = 0;
    state.probe = undefined;
    state.roundSize = full ? Math.min(MAX_ROUND, state.roundSize * 2) : state.roundSize;
  }
}

/** Works a subscription's deliveries until none is left, its breaker opens, it is disabled, or the deadline nears. */
export async function runLane(webhook: WebhookSubscription, state: LaneState, deadline: number, into: LaneTally): Promise<void> {
  for (;;) {
    const now = Date.now();
    // Each wave of LANE_CONCURRENCY attempts may take ATTEMPT_TIMEOUT_MS: the round takes no more waves than fit before the deadline.
    const waves = Math.floor((deadline - now - RECORD_MS) / ATTEMPT_TIMEOUT_MS);
    if (state.openUntil > now || waves < 1) return;
    const roundSize = Math.min(state.roundSize, waves * LANE_CONCURRENCY);
    let deliveries: Delivery[];
    let moving: WriteStep[] = [];
    let moveTo: FeedPosition | undefined;
    let full = false;
    if (state.openUntil > 0) {
      const probe = await probeJob(webhook.id, state, now);
      // Nothing left to probe with: the lane is closed again, and its next attempts judge it.
      if (!probe) state.openUntil = 0;
      deliveries = probe ? await deliveriesOf([probe]) : [];
    } else {
      const jobs = await dueJobs(webhook.id, state, now);
      const room = roundSize - jobs.length;
      const feed = await fromFeed(webhook, state, room);
      full = room > 0 && feed.changes.length === room;
      const cursor = present(state.cursor, "the lane's cursor, which fromFeed read");
      if (after(feed.moveTo, cursor.position)) {
        moveTo = feed.moveTo;
        const read = [cursor.position.n, cursor.position.i];
        moving = [put({ ...laneCursorKey(webhook.id), position: [moveTo.n, moveTo.i] }, cursor.stored ? holds('position', read) : ABSENT, raced)];
      }
      deliveries = [...feed.changes.map((change) => ({ change })), ...(await deliveriesOf(jobs))];
      into.jobs += jobs.length;
      const newest = feed.changes.at(-1);
      if (newest) into.lastChangeAt = Math.max(into.lastChangeAt ?? 0, Date.parse(newest.date));
    }
    if (!deliveries.length && !moving.length) {
      if (state.openUntil === 0) return;
      continue;
    }
    const attempted = await inTurns(deliveries, LANE_CONCURRENCY, (delivery) => attemptDelivery(webhook, delivery));
    const recorded = await recordAttempts(webhook, attempted, moving);
    // Another worker moved the cursor meanwhile (two on one table): read it again.
    if (!recorded) state.cursor = undefined;
    else if (moveTo) state.cursor = { position: moveTo, stored: true };
    tally(attempted, into);
    if (attempted.some(({ outcome }) => outcome.kind === 'disabled')) return;
    judge(attempted, state, full);
  }
}
