/**
 * The webhooks' worker on AWS (lib/webhooks/worker.ts), woken by the table's stream when changes are
 * placed in the feed (whatever the records say: the lanes read the feed) and by a schedule of one run
 * a minute. While there is work, or a job falls due within this run (a first retry, 5 s after its
 * failure), it ticks a second apart until 15 s of its minute are left; then it lets its lanes
 * finish, each starting no attempt it could not record before the run's end. An idle store pays one
 * short invocation a minute. `npm start` ticks the same worker twice a second.
 */
import { setTimeout as pause } from 'node:timers/promises';
import type { Context } from 'aws-lambda';
import { webhookWorker } from '../../lib/webhooks/worker.js';

/** Stop ticking when this much of the run's time is left: an attempt may take 10 s. */
const RESERVE_MS = 15_000;
/** Kept back from the run's end for its last records and its return. */
const MARGIN_MS = 1_000;
const TICK_MS = 1_000;

export const handler = async (_event: unknown, context: Context): Promise<void> => {
  const deadline = Date.now() + context.getRemainingTimeInMillis() - MARGIN_MS;
  while (deadline - Date.now() > RESERVE_MS) {
    const started = Date.now();
    await webhookWorker.tick(deadline);
    const rest = TICK_MS - (Date.now() - started);
    if (rest > 0) await pause(rest);
    // Lanes still at work (a slow receiver's) do not hold the ticks of the others; an idle worker
    // stays only for a job that falls due within the run.
    if (webhookWorker.idle && webhookWorker.take().attempted === 0) {
      const nextDue = await webhookWorker.nextDue();
      if (nextDue === undefined || nextDue > deadline - RESERVE_MS) break;
    }
  }
  await webhookWorker.settle();
};
