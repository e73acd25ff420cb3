/**
 * A version item: a number that grows by one in every transaction that changes a set of records
 * (for example: any tax rule). Reading it with other items tells a container whether what it cached
 * of that set is still current, at the cost of one more key in a batch read.
 */
import * as v from 'valibot';
import { joinable } from './joined-steps.js';
import { readItem } from './items.js';
import { keyText, type Key } from './keys.js';
import { defineStored } from './stored.js';
import { update, type WriteStep } from './transactions.js';

const VERSION = 'version';
const StoredVersion = defineStored('version item', { [VERSION]: v.number() });

export function defineVersionItem(key: Key) {
  return {
    /** The version now (0 before the first change): asked in the same turn as other reads, one more key of their BatchGet (items.ts). */
    async read(): Promise<number> {
      const item = await readItem(key);
      return item ? StoredVersion.parse(item)[VERSION] : 0;
    },
    /**
     * The step, in a changing transaction, that makes every cache of the set stale. Joinable: a
     * transaction that changes several of the set (an import's) bumps it once, one write of its item.
     */
    bump(): WriteStep {
      return joinable(update(key, { update: 'ADD #version :one', names: { '#version': VERSION }, values: { ':one': 1 } }), `version\u0000${keyText(key)}`, ([first]) => (first ? [first] : []));
    },
  };
}

/**
 * What a container caches of a set by id (a record, or one of its values), labelled with the set's
 * version a request read: a label is trusted only by a request that read that same version, so what
 * it is given is never older than what it saw; another version starts the cache anew. `readMany`
 * reads what the cache lacks.
 */
export function versionedCache<V>(readMany: (ids: readonly number[]) => Promise<ReadonlyMap<number, V>>) {
  let cache = { version: -1, values: new Map<number, V>() };
  return async (version: number, ids: readonly number[]): Promise<ReadonlyMap<number, V>> => {
    if (cache.version !== version) cache = { version, values: new Map() };
    // This version's cache, held across the read: a request that meanwhile saw another version has a
    // cache of its own, which values read at this one never reach.
    const held = cache.values;
    const missing = [...new Set(ids)].filter((id) => !held.has(id));
    if (missing.length) for (const [id, value] of await readMany(missing)) held.set(id, value);
    // The asked values, as a map of the request's own: never the cache another request goes on filling or replacing.
    return new Map(ids.flatMap((id) => (held.has(id) ? [[id, held.get(id) as V] as const] : [])));
  };
}
