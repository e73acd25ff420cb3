/**
 * The webhooks' worker on AWS (lib/webhooks/worker.ts), woken by the table's stream when changes are
 * placed in the feed (whatever the records say: the lanes read the feed) and by a schedule of one run
 * a minute. While there is work, or a job falls due within this run (a first retry, 5 s after its
 * failure), it ticks a second apart until 15 s of its minute are left; then it lets its lanes
 * finish, each starting no attempt it could not record before the run's end. An idle store pays one
 * short invocation a minute. `npm start` ticks the same worker twice a second.
 */
import type { Context } from 'aws-lambda';
import { runRounds } from '../../lib/background-run.js';
import { webhookWorker } from '../../lib/webhooks/worker.js';

export const handler = async (_event: unknown, context: Context): Promise<void> => {
  // Ticks a second apart until 15 s are left (an attempt may take 10 s); 1 s kept for the last records.
  await runRounds(
    context,
    { reserveMs: 15_000, marginMs: 1_000, everyMs: 1_000 },
    ({ end }) => webhookWorker.tick(end),
    // Lanes still at work (a slow receiver's) do not hold the ticks of the others; an idle worker
    // stays only for a job that falls due within the run.
    async ({ stopBy }) => {
      if (!webhookWorker.idle || webhookWorker.take().attempted !== 0) return true;
      const nextDue = await webhookWorker.nextDue();
      return nextDue !== undefined && nextDue <= stopBy;
    },
  );
  await webhookWorker.settle();
};
