/** lib/local/paced-job.ts: npm start's background jobs, woken by its writes and paced. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pacedJob } from '../../lib/local/paced-job.js';

/** A job that records when each run starts, and takes `runMs` of (fake) time. */
function recorded(runMs = 0) {
  const starts: number[] = [];
  const job = async () => {
    starts.push(Date.now());
    if (runMs) await new Promise((resolve) => setTimeout(resolve, runMs));
  };
  return { starts, job };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('a paced job', () => {
  it('runs every idleMs while nothing wakes it', async () => {
    const { starts, job } = recorded();
    pacedJob('test', { gapMs: 500, idleMs: 2_000 }, job);
    await vi.advanceTimersByTimeAsync(6_600);
    expect(starts).toEqual([500, 2_500, 4_500, 6_500]);
  });

  it('runs at once when woken after its gap, and a second wake within the gap runs it when the gap is over', async () => {
    const { starts, job } = recorded();
    const paced = pacedJob('test', { gapMs: 500, idleMs: 2_000 }, job);
    await vi.advanceTimersByTimeAsync(1_000);
    paced.wake();
    await vi.advanceTimersByTimeAsync(100);
    paced.wake();
    paced.wake();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(starts).toEqual([500, 1_000, 1_500]);
  });

  it('runs once more after a run it was woken during, never two at once', async () => {
    const { starts, job } = recorded(800);
    const paced = pacedJob('test', { gapMs: 500, idleMs: 2_000 }, job);
    await vi.advanceTimersByTimeAsync(600);
    paced.wake();
    paced.wake();
    // The run that started at 500 ends at 1 300; the one it was woken for starts then (its gap is over), not before.
    await vi.advanceTimersByTimeAsync(1_000);
    const [, second = 0] = starts;
    expect(starts).toHaveLength(2);
    expect(second).toBeGreaterThanOrEqual(1_300);
    expect(second).toBeLessThan(1_310);
    // That one ends 800 ms later, not woken: the next is the idle one, 2 s after.
    await vi.advanceTimersByTimeAsync(2_600);
    expect(starts).toEqual([500, second, second + 2_800]);
  });

  it('says a run’s failure and goes on', async () => {
    const said: string[] = [];
    let runs = 0;
    pacedJob(
      'changes',
      { gapMs: 500, idleMs: 2_000 },
      async () => {
        runs++;
        throw new TypeError('no table');
      },
      (line) => said.push(line),
    );
    await vi.advanceTimersByTimeAsync(2_600);
    expect(runs).toBe(2);
    expect(said).toEqual(['changes: TypeError: no table', 'changes: TypeError: no table']);
  });
});
