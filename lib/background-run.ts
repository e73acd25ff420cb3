/**
 * How a background job runs in one Lambda invocation (the feed's placer, the webhooks' worker):
 * rounds, each told when the invocation ends (`end`, less a margin kept for the last writes and the
 * return) and by when it should be done (`stopBy`, `reserveMs` before that), at most one every
 * `everyMs`, until `stopBy` is reached or, asked once the pace's wait is over (what a round started
 * has had its time), `more` says there is nothing more to do this run.
 * (`npm start` runs the same jobs on its own pace instead: lib/local/start.ts.)
 */
import { setTimeout as pause } from 'node:timers/promises';

export interface RunOptions {
  /** Rounds stop starting when this much of the run is left. */
  reserveMs: number;
  /** Kept back from the invocation's end. */
  marginMs?: number;
  /** The least time between two rounds' starts. */
  everyMs?: number;
}

interface RunTimes {
  end: number;
  stopBy: number;
}

/** Runs `round` until the run's time is spent or `more` answers false; the run's end. */
export async function runRounds(
  context: { getRemainingTimeInMillis(): number },
  { reserveMs, marginMs = 0, everyMs = 0 }: RunOptions,
  round: (times: RunTimes) => Promise<unknown>,
  more: (times: RunTimes) => Promise<boolean> = async () => false,
): Promise<number> {
  const end = Date.now() + context.getRemainingTimeInMillis() - marginMs;
  const times = { end, stopBy: end - reserveMs };
  while (Date.now() < times.stopBy) {
    const started = Date.now();
    await round(times);
    const rest = everyMs - (Date.now() - started);
    if (rest > 0) await pause(rest);
    if (!(await more(times))) break;
  }
  return end;
}
