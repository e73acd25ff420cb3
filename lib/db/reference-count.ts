/**
 * What refers to a record (a category's children and products, a brand's products, an attribute's
 * values): a count of 16 shards beside it (`<prefix>#<id>`), made and deleted with it. A reference adds
 * to its own shard on condition that the shard exists, which proves the record exists without any two
 * references' writes sharing an item; a delete reads the shards, refuses while their sum is above 0,
 * and deletes each on condition that it holds what was read (a reference counted in meanwhile
 * cancels it). Knows no resource: each declares its own prefix.
 */
import { addStep, createSteps, readShards, removeAsReadSteps, shardedCount, sumOf, type ShardValues } from './sharded-count.js';
import type { OnConditionFailed, WriteStep } from './transactions.js';

export interface ReferenceCount {
  /** The count of what refers to record `id`. */
  readonly of: (id: number) => ReturnType<typeof shardedCount>;
  /** The step that counts a referrer in (1) or out (−1), on its own shard, failing as `onMissing` when the record is not there. */
  readonly countStep: (id: number, referrerId: number, delta: number, onMissing: OnConditionFailed) => WriteStep;
  /** The steps that make a new record's count (in the record's own transaction). */
  readonly createSteps: (id: number) => WriteStep[];
  /** The count's shards, as read (consistently) for a delete. */
  readonly read: (id: number) => Promise<ShardValues | undefined>;
  /** The steps that delete a record's count as read: a reference counted in since fails with `changed`. */
  readonly removeSteps: (id: number, read: ShardValues | undefined, changed: OnConditionFailed) => WriteStep[];
}

export function referenceCount(prefix: string): ReferenceCount {
  const of = (id: number) => shardedCount(`${prefix}#${id}`, 16);
  return {
    of,
    countStep: (id, referrerId, delta, onMissing) => addStep(of(id), referrerId, delta, { whileExists: onMissing }),
    createSteps: (id) => createSteps(of(id)),
    read: (id) => readShards(of(id)),
    removeSteps: (id, read, changed) => removeAsReadSteps(of(id), read, changed),
  };
}

/**
 * The steps that move one referrer's reference from what it is counted in (`from`, when counted) to
 * `to` (0: nothing), counting it in on condition that `to` exists (else `unknown`); none when it is
 * counted in `to` already.
 */
export function referenceMoveSteps(
  count: ReferenceCount,
  referrerId: number,
  from: { id: number; counted: boolean } | undefined,
  to: number,
  { unknown, raced }: { unknown: OnConditionFailed; raced: OnConditionFailed },
): WriteStep[] {
  if (from?.counted && from.id === to) return [];
  return [...(to !== 0 ? [count.countStep(to, referrerId, 1, unknown)] : []), ...(from?.counted ? [count.countStep(from.id, referrerId, -1, raced)] : [])];
}

/**
 * The steps that move one referrer's references from the records it referred to (`before`) to those
 * it refers to (`after`, several: a sale element's attribute values): counted into each new one on
 * condition that it exists (else `unknown(id)`), out of each dropped one (`raced` when it is gone).
 */
export function referenceSetMoveSteps(
  count: ReferenceCount,
  referrerId: number,
  before: readonly number[],
  after: readonly number[],
  { unknown, raced }: { unknown: (id: number) => OnConditionFailed; raced: OnConditionFailed },
): WriteStep[] {
  return [
    ...after.filter((id) => !before.includes(id)).map((id) => count.countStep(id, referrerId, 1, unknown(id))),
    ...before.filter((id) => !after.includes(id)).map((id) => count.countStep(id, referrerId, -1, raced)),
  ];
}

export { sumOf };
