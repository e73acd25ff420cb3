/**
 * The webhooks' rounds on AWS (lib/webhooks/run.ts), on a schedule of one run a minute. While there
 * is work, or a job falls due within this run (a first retry, 5 s after its failure), a run works in
 * rounds a second apart until 15 s of its minute are left; otherwise it ends, and new changes wait
 * for the next run (a minute at most). An idle store pays one short invocation a minute. `npm start`
 * runs the same rounds every second.
 */
import { setTimeout as pause } from 'node:timers/promises';
import type { Context } from 'aws-lambda';
import { runWebhooksOnce } from '../../lib/webhooks/run.js';

/** Stop starting rounds when this much of the run's time is left: an attempt may take 10 s. */
const RESERVE_MS = 15_000;
const ROUND_MS = 1_000;

export const handler = async (_event: unknown, context: Context): Promise<void> => {
  while (context.getRemainingTimeInMillis() > RESERVE_MS) {
    const started = Date.now();
    const round = await runWebhooksOnce();
    const dueInThisRun = round.nextDue !== undefined && round.nextDue < Date.now() + context.getRemainingTimeInMillis() - RESERVE_MS;
    if (round.queued === 0 && round.attempted === 0 && !dueInThisRun) return;
    const rest = ROUND_MS - (Date.now() - started);
    if (rest > 0) await pause(rest);
  }
};
