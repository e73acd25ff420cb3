/**
 * A pointer item: one item that names one record, such as "the default tax rule". Moving it is
 * conditioned on where it pointed when read, so that two concurrent moves cannot both win.
 */
import * as v from 'valibot';
import { readItem, type Item } from './items.js';
import type { Key } from './keys.js';
import { defineStored } from './stored.js';
import { ABSENT, check, holds, put, raced, remove, type OnConditionFailed, type WriteStep } from './transactions.js';

const TARGET = 'targetId';
const StoredPointer = defineStored('pointer', { [TARGET]: v.number() });

export function definePointer(key: Key) {
  return {
    key,
    /** Where an item read with others (items.ts `readTogether`) points. */
    targetOf: (item: Item | undefined): number | undefined => (item ? StoredPointer.parse(item)[TARGET] : undefined),
    async read(): Promise<number | undefined> {
      return this.targetOf(await readItem(key));
    },
    /** Points at `to`, on condition that it still points at `from` (nowhere when undefined). */
    move(from: number | undefined, to: number): WriteStep {
      return put({ ...key, [TARGET]: to }, from === undefined ? ABSENT : holds(TARGET, from), raced);
    },
    /** Checks, in a transaction, that it still points at `target`. */
    check(target: number, onConditionFailed: OnConditionFailed = raced): WriteStep {
      return check(key, holds(TARGET, target), onConditionFailed);
    },
    /** Points nowhere, on condition that it pointed at `target`. */
    clear(target: number): WriteStep {
      return remove(key, holds(TARGET, target), raced);
    },
  };
}
