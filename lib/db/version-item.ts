/**
 * A version item: a number that grows by one in every transaction that changes a set of records
 * (for example: any tax rule). Reading it with other items tells a container whether what it cached
 * of that set is still current, at the cost of one more key in a batch read.
 */
import * as v from 'valibot';
import { readItem, type Item } from './items.js';
import type { Key } from './keys.js';
import { defineStored } from './stored.js';
import { update, type WriteStep } from './transactions.js';

const VERSION = 'version';
const StoredVersion = defineStored('version item', { [VERSION]: v.number() });

export function defineVersionItem(key: Key) {
  return {
    key,
    /** The version an item read with others holds (0 before the first change). */
    valueOf: (item: Item | undefined): number => (item ? StoredVersion.parse(item)[VERSION] : 0),
    async read(): Promise<number> {
      return this.valueOf(await readItem(key));
    },
    /** The step, in a changing transaction, that makes every cache of the set stale. */
    bump(): WriteStep {
      return update(key, { update: 'ADD #version :one', names: { '#version': VERSION }, values: { ':one': 1 } });
    },
  };
}
