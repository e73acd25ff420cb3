/**
 * The webhooks' rounds on AWS (lib/webhooks/run.ts), on a schedule of one run a minute: each run
 * works in rounds of about a second for most of its minute, so that the first retry (about 5 s) and
 * new changes do not wait for the next run. `npm start` runs the same rounds every second.
 */
import type { Context } from 'aws-lambda';
import { runWebhooksOnce } from '../../lib/webhooks/run.js';

/** Stop starting rounds when this much of the run's time is left: an attempt may take 10 s. */
const RESERVE_MS = 15_000;

export const handler = async (_event: unknown, context: Context): Promise<void> => {
  while (context.getRemainingTimeInMillis() > RESERVE_MS) {
    const started = Date.now();
    const round = await runWebhooksOnce();
    if (round.queued === 0 && round.attempted === 0) await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1_000 - (Date.now() - started))));
  }
};
