/**
 * Version items (lib/db/version-item.ts): a set's version, bumped once by a transaction however many
 * of the set it changes, and what a container caches of the set, trusted only at the version read.
 */
import { describe, expect, it } from 'vitest';
import { joinSteps } from '../../lib/db/joined-steps.js';
import { defineVersionItem, versionedCache } from '../../lib/db/version-item.js';

describe('a version item', () => {
  it('is bumped once by a transaction whose steps bump it twice: one write of its item', () => {
    const version = defineVersionItem({ pk: 'SET', sk: 'VERSION' });
    const other = defineVersionItem({ pk: 'OTHER', sk: 'VERSION' });
    const { steps } = joinSteps([version.bump(), other.bump(), version.bump()]);
    expect(steps.map((step) => step.item.Update?.Key)).toEqual([
      { pk: 'SET', sk: 'VERSION' },
      { pk: 'OTHER', sk: 'VERSION' },
    ]);
  });
});

describe('a versioned cache', () => {
  /** A cache over values `value <id> read <n>`, recording the ids each read asked for. */
  const counted = () => {
    const asked: number[][] = [];
    const cache = versionedCache(async (ids) => {
      asked.push([...ids]);
      return new Map(ids.map((id) => [id, `value ${id} read ${asked.length}`] as const));
    });
    return { asked, cache };
  };

  it('reads only what it lacks at the version read, and answers only what was asked', async () => {
    const { asked, cache } = counted();
    expect(await cache(1, [1, 2])).toEqual(
      new Map([
        [1, 'value 1 read 1'],
        [2, 'value 2 read 1'],
      ]),
    );
    expect(await cache(1, [2, 3, 3])).toEqual(
      new Map([
        [2, 'value 2 read 1'],
        [3, 'value 3 read 2'],
      ]),
    );
    expect(asked).toEqual([[1, 2], [3]]);
  });

  it('starts anew at another version: nothing read at one is given at the other', async () => {
    const { asked, cache } = counted();
    await cache(1, [1]);
    expect((await cache(2, [1])).get(1)).toBe('value 1 read 2');
    expect((await cache(1, [1])).get(1)).toBe('value 1 read 3');
    expect(asked).toEqual([[1], [1], [1]]);
  });

  it('leaves out what the read did not find', async () => {
    const cache = versionedCache(async (ids) => new Map(ids.filter((id) => id !== 9).map((id) => [id, id] as const)));
    expect([...(await cache(1, [8, 9])).keys()]).toEqual([8]);
  });
});
