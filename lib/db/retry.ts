/**
 * One way to try again (AWS's "Exponential Backoff And Jitter"): an operation is run again while what
 * it throws is retryable, after a wait that grows with each attempt, a bounded number of times; then
 * the last error, or what `exhausted` makes of it, is thrown. Each caller says what is retryable and
 * how long to wait: a conflict of transactions, DynamoDB out of reach, entries EventBridge refused.
 */
import { setTimeout as pause } from 'node:timers/promises';
import { OutOfTime } from './errors.js';
import { currentScope } from './scope.js';

export interface RetryPolicy {
  attempts: number;
  retryable: (error: unknown) => boolean;
  /** The wait after attempt `attempt` (1-based) failed. */
  waitMs: (attempt: number) => number;
  /** What to throw when the attempts are spent (by default the last error). */
  exhausted?: (error: unknown) => unknown;
}

/** A wait drawn from [0, base × 2^attempt], capped: writers that met spread out (full jitter). */
export const fullJitter = (baseMs: number, maxMs: number) => (attempt: number) => Math.random() * Math.min(maxMs, baseMs * 2 ** attempt);
/** Half of base × 2^attempt (capped), plus up to as much again at random (equal jitter): never much shorter than planned. */
export const equalJitter = (baseMs: number, maxMs: number) => (attempt: number) => Math.min(maxMs, baseMs * 2 ** attempt) * (0.5 + Math.random() / 2);

export async function retrying<T>(operation: (attempt: number) => Promise<T>, policy: RetryPolicy): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (!policy.retryable(error)) throw error;
      if (attempt >= policy.attempts) throw policy.exhausted ? policy.exhausted(error) : error;
      // A wait ends with the work's deadline (a request's budget): past it, the answer is that time ran out.
      const deadline = currentScope().deadline;
      if (deadline?.aborted) throw new OutOfTime(deadline.reason);
      await pause(policy.waitMs(attempt), undefined, deadline ? { signal: deadline } : {}).catch((aborted: unknown) => {
        throw new OutOfTime(aborted);
      });
    }
  }
}
