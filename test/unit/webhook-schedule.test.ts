import { afterEach, describe, expect, it } from 'vitest';
import { failingTooLong, nextAttemptAt, RETRY_DELAYS_SECONDS } from '../../lib/webhooks/schedule.js';

afterEach(() => {
  delete process.env.STORE_WEBHOOK_RETRY_SECONDS;
});

describe('the retry schedule', () => {
  it("is the contract's: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h, then none", () => {
    expect(RETRY_DELAYS_SECONDS).toEqual([5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 14 * 3600, 20 * 3600, 24 * 3600]);
    const exact = () => 0.5; // no jitter
    expect(RETRY_DELAYS_SECONDS.map((_, i) => nextAttemptAt(i + 1, 0, exact))).toEqual(RETRY_DELAYS_SECONDS.map((s) => s * 1000));
    expect(nextAttemptAt(RETRY_DELAYS_SECONDS.length + 1, 0)).toBeUndefined();
  });

  it('spreads each delay by at most 10 % either way', () => {
    expect(nextAttemptAt(2, 1_000, () => 0)).toBe(1_000 + 270_000);
    expect(nextAttemptAt(2, 1_000, () => 1)).toBe(1_000 + 330_000);
  });

  it('takes shorter delays from the configuration (tests), and disables after three days of failures', () => {
    process.env.STORE_WEBHOOK_RETRY_SECONDS = '0.1,0.2';
    expect(nextAttemptAt(1, 0, () => 0.5)).toBe(100);
    expect(nextAttemptAt(3, 0)).toBeUndefined();
    expect(failingTooLong(0, 3 * 24 * 3600 * 1000 - 1)).toBe(false);
    expect(failingTooLong(0, 3 * 24 * 3600 * 1000)).toBe(true);
  });
});
