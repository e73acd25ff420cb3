/**
 * Uniqueness locks: for each unique value a record holds (a customer's email, a product's ref), an
 * item keyed by the value, as compared, naming its owner (and carrying fields a read by value
 * needs). Written with the record: taken on create, moved when the value changes, freed on remove,
 * and moved from a former form of the value to the current one (`relock`).
 */
import { defineStored } from './stored.js';
import * as v from 'valibot';
import { LIMITS } from '../limits.js';
import { Conflict } from './errors.js';
import { readItem, type Item } from './items.js';
import { boundedKeyPart, type Key } from './keys.js';
import { ABSENT, holds, patchStep, put, raced, remove, type OnConditionFailed, type Patch, type WriteStep } from './transactions.js';
import { isDeepStrictEqual } from 'node:util';
import type { Id, LockDeclaration } from './entity-declaration.js';

const LOCK_SORT_KEY = 'LOCK';
const LOCK_OWNER = 'ownerId';
/** A lock item as read: its owner's id (and what it carries, which the entity's own declaration reads). */
const StoredLock = defineStored('lock', { [LOCK_OWNER]: v.union([v.number(), v.string()]) });

export function locksOf<R extends Item, I extends Id, K extends string>(entity: { name: string; id: (record: R) => I; locks: Partial<Record<K, LockDeclaration<R>>> | undefined }) {
  const { name, id } = entity;
  const locks = Object.entries(entity.locks ?? {}) as [K, LockDeclaration<R>][];

  function lockOf(lockName: K): LockDeclaration<R> {
    const lock = entity.locks?.[lockName];
    if (!lock) throw new Error(`${name} has no lock ${lockName}`);
    return lock;
  }

  /**
   * The key of the lock item that holds `value` (as sent: it is normalized here). However long the
   * value (a filter's is not bounded), the key is one DynamoDB takes.
   */
  function lockKey(lockName: K, value: string, normalize = lockOf(lockName).normalize): Key {
    const prefix = `${lockOf(lockName).prefix}#`;
    const part = boundedKeyPart(normalize ? normalize(value) : value, LIMITS.dynamodb.partitionKeyBytes - Buffer.byteLength(prefix));
    return { pk: prefix + part, sk: LOCK_SORT_KEY };
  }

  const lockItem = (lockName: K, record: R): Item => ({
    ...lockKey(lockName, lockOf(lockName).valueOf(record)),
    [LOCK_OWNER]: id(record),
    ...lockOf(lockName).carry?.(record),
  });

  const ownedBy = (record: R) => holds(LOCK_OWNER, id(record));
  const taken = (lockName: K) => () => new Conflict(`a ${name} already has this ${lockName}`, lockName);

  return {
    lockKey,
    /** The id of the record a lock item belongs to. */
    lockOwner: (item: Item): I => StoredLock.parse(item)[LOCK_OWNER] as I,

    /** The id of the record holding a unique value: the lock alone, one read. */
    async ownerByLock(lockName: K, value: string): Promise<I | undefined> {
      const lock = await readItem(lockKey(lockName, value));
      return lock && (StoredLock.parse(lock)[LOCK_OWNER] as I);
    },

    /** The steps that take a new record's locks (a value another record holds: that lock's Conflict). */
    taking: (record: R): WriteStep[] => locks.map(([lockName]) => put(lockItem(lockName, record), ABSENT, taken(lockName))),

    /** The steps that move each lock whose value changed, and refresh those whose carried fields did. */
    moving(current: R, next: R): WriteStep[] {
      const steps: WriteStep[] = [];
      for (const [lockName, lock] of locks) {
        const [before, after] = [lockItem(lockName, current), lockItem(lockName, next)];
        if (before.pk !== after.pk) {
          steps.push(remove(lockKey(lockName, lock.valueOf(current)), ownedBy(current), raced), put(after, ABSENT, taken(lockName)));
        } else if (!isDeepStrictEqual(before, after) || lock.valueOf(current) !== lock.valueOf(next)) {
          steps.push(put(after, ownedBy(current), raced));
        }
      }
      return steps;
    },

    /** The steps that free a removed record's locks (still its own, or the remove raced another write). */
    freeing: (record: R): WriteStep[] => locks.map(([lockName, lock]) => remove(lockKey(lockName, lock.valueOf(record)), ownedBy(record), raced)),

    /**
     * The steps that move a record's locks kept under a former form of their value (`formerly`) to the
     * current one, or none when they are there already. A value another record holds in the current
     * form fails with that lock's Conflict: the two records now read as one, and a person decides.
     */
    async relock(record: R): Promise<WriteStep[]> {
      const steps: WriteStep[] = [];
      for (const [lockName, lock] of locks) {
        if (!lock.formerly) continue;
        const [former, current] = [lockKey(lockName, lock.valueOf(record), lock.formerly), lockKey(lockName, lock.valueOf(record))];
        if (former.pk === current.pk) continue;
        const kept = await readItem(former);
        if (!kept || StoredLock.parse(kept)[LOCK_OWNER] !== id(record)) continue;
        steps.push(remove(former, ownedBy(record), raced), put(lockItem(lockName, record), ABSENT, taken(lockName)));
      }
      return steps;
    },

    /** A step that changes the fields a lock item carries, in place. */
    patchLock: (lockName: K, value: string, patch: Patch<R>, onConditionFailed?: OnConditionFailed): WriteStep => patchStep(lockKey(lockName, value), patch, onConditionFailed),
  };
}
