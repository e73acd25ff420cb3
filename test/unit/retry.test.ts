/** One way to try again (lib/db/retry.ts), on its own: bounded by its attempts, and by the deadline of the work it serves. */
import { describe, expect, it } from 'vitest';
import { withDeadline } from '../../lib/db/client.js';
import { OutOfTime } from '../../lib/db/errors.js';
import { retrying } from '../../lib/db/retry.js';

const busy = () => Promise.reject(new Error('busy'));
const policy = { attempts: 5, retryable: () => true, waitMs: () => 60_000 };

describe('retrying', () => {
  it('gives up after its attempts, with the last error or what `exhausted` makes of it', async () => {
    let tries = 0;
    const counted = () => {
      tries++;
      return busy();
    };
    await expect(retrying(counted, { ...policy, waitMs: () => 0 })).rejects.toThrow('busy');
    expect(tries).toBe(5);
    await expect(retrying(busy, { ...policy, waitMs: () => 0, exhausted: () => new Error('spent') })).rejects.toThrow('spent');
  });

  it("stops waiting when the work's deadline passes: out of time at once, not after the wait it planned", async () => {
    const started = Date.now();
    const attempt = withDeadline(AbortSignal.timeout(50), () => retrying(busy, policy));
    await expect(attempt).rejects.toBeInstanceOf(OutOfTime);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
