/** lib/db/per-turn.ts: what one piece of work asks in one turn is answered together, by group, never with another's asks. */
import { describe, expect, it } from 'vitest';
import { gatheredPerTurn } from '../../lib/db/per-turn.js';
import { withinScope } from '../../lib/db/scope.js';

/** An asker that doubles each ask, and the turns it answered (their asks, in order). */
function doubling() {
  const turns: Array<{ group: string; asks: readonly number[] }> = [];
  const ask = gatheredPerTurn<number, number>(async (asks, group) => {
    turns.push({ group, asks });
    return asks.map((n) => 2 * n);
  });
  return { ask, turns };
}

/** Runs `work` as a piece of work of its own (a request's scope). */
const asWork = <T>(work: () => Promise<T>) => withinScope({ usage: { requests: 0, capacity: 0, throttled: 0 } }, work);

describe('asks gathered per turn', () => {
  it('answers the asks of one turn together, each its own answer in the order asked, and a later turn apart', async () => {
    const { ask, turns } = doubling();
    expect(await asWork(() => Promise.all([ask('a', 1), ask('a', 2), ask('a', 3)]))).toEqual([2, 4, 6]);
    expect(await asWork(() => ask('a', 4))).toBe(8);
    expect(turns).toEqual([
      { group: 'a', asks: [1, 2, 3] },
      { group: 'a', asks: [4] },
    ]);
  });

  it('keeps groups apart, and never gathers two pieces of work’s asks together', async () => {
    const { ask, turns } = doubling();
    await Promise.all([asWork(() => Promise.all([ask('a', 1), ask('b', 2)])), asWork(() => ask('a', 3))]);
    expect(turns).toHaveLength(3);
    expect(turns).toEqual(
      expect.arrayContaining([
        { group: 'a', asks: [1] },
        { group: 'b', asks: [2] },
        { group: 'a', asks: [3] },
      ]),
    );
  });

  it('fails every ask of a turn whose answer fails, and answers the next turn anew', async () => {
    let fail = true;
    const ask = gatheredPerTurn<number, number>(async (asks) => {
      if (fail) throw new Error('out of reach');
      return asks;
    });
    const outcomes = await asWork(() => Promise.allSettled([ask('a', 1), ask('a', 2)]));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await asWork(() => ask('a', 5))).toBe(5);
  });
});
