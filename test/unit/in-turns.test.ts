/** lib/in-turns.ts: at most `concurrency` at once, every item once, results in the items' order. */
import { setTimeout as pause } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { inTurns } from '../../lib/in-turns.js';

describe('inTurns', () => {
  it('runs every item once, never more than the concurrency at once, and answers in the items’ order', async () => {
    let running = 0;
    let most = 0;
    const items = [30, 5, 20, 1, 10, 15, 2, 8];
    const results = await inTurns(items, 3, async (ms) => {
      most = Math.max(most, ++running);
      await pause(ms);
      running--;
      return ms * 2;
    });
    expect(results).toEqual(items.map((ms) => ms * 2));
    expect(most).toBe(3);
    expect(await inTurns([], 3, async () => 1)).toEqual([]);
  });
});
