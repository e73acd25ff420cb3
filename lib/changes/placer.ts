/**
 * The change feed's placer as a job (lib/db/feed.ts `runPlacer`): on AWS a function run by the
 * table's stream when changes are pending and by a schedule every minute; with `npm start` a loop.
 * Each run that did something writes one log line, also an EMF document (namespace
 * `StoreApi/Changes`): `Placed`, `OldestPendingAge` (how long the oldest change waited for it),
 * `FeedLag` (how old the last change it placed was when it stopped) and `Behind` (it stopped at its
 * deadline with changes still pending), for the alarms and the dashboard (Monitoring).
 */
import { PENDING_PREFIX } from '../db/changes.js';
import { insertsUnder } from '../db/stream-filter.js';
import { FEED_ITEM_PREFIX, runPlacer, type PlacerRun } from '../db/feed.js';
import { log, metricsDirective } from '../log.js';

export const CHANGES_NAMESPACE = 'StoreApi/Changes';

/** The stream's records that wake the placer: inserted markers of pending changes. */
export const PENDING_INSERTS = insertsUnder(PENDING_PREFIX);
/** The stream's records of what it placed: inserted feed items, which wake the webhooks' worker. */
export const PLACED_INSERTS = insertsUnder(FEED_ITEM_PREFIX);

/**
 * Places what is pending, oldest first, until none is left or `until` (epoch ms); another placer at
 * work makes it a no-op. `owner`: the placer's lasting name, when it has one (runPlacer).
 */
export async function placeChanges(until: number, owner?: string): Promise<PlacerRun> {
  const run = await runPlacer(until, owner);
  if (run.placed > 0 || run.behind) {
    log(run.behind ? 'warn' : 'info', 'changes placed', {
      Placed: run.placed,
      OldestPendingAge: run.oldestPendingMs ?? 0,
      FeedLag: run.lastPlacedAt === undefined ? 0 : Math.max(0, Date.now() - run.lastPlacedAt),
      Behind: run.behind ? 1 : 0,
      ...metricsDirective(CHANGES_NAMESPACE, [
        ['Placed', 'Count'],
        ['OldestPendingAge', 'Milliseconds'],
        ['FeedLag', 'Milliseconds'],
        ['Behind', 'Count'],
      ]),
    });
  }
  return run;
}
