/**
 * A count split over shard items, so that concurrent writes adding to it touch different items.
 * DynamoDB cancels a transaction that touches an item another transaction is writing
 * (`TransactionConflict`): one count item that every create updates would make creates of a kind
 * take turns. Each addition goes to the shard of the record it is for (its id modulo the shards):
 * concurrent creates get consecutive ids, so they land on different shards. Only the sum means
 * anything (a shard may be negative: a batch counts its records on one shard, a migration put a
 * whole count on the first). A read sums the shards, which all sit in one partition: one
 * consistent Query.
 *
 * With `bounded` (one shard), the count can refuse to grow past a maximum in the write's own
 * condition: for small sets (1 000 tax rules, 50 webhooks), where one item is no hot spot.
 */
import * as v from 'valibot';
import { queryAll } from './items.js';
import { keyText, type Key } from './keys.js';
import { defineStored } from './stored.js';
import { joinable } from './joined-steps.js';
import { ABSENT, remove, put, update, type OnConditionFailed, type WriteStep } from './transactions.js';

export interface ShardedCount {
  /** The partition its shards share. */
  readonly partition: string;
  readonly shards: number;
}

const SHARD_PREFIX = 'S#';
const VALUE = 'n';
/** A shard: its part of the count. */
const StoredShard = defineStored('count shard', { sk: v.string(), [VALUE]: v.optional(v.number(), 0) });

export const shardedCount = (partition: string, shards: number): ShardedCount => ({ partition, shards });

/** The shard item that holds the additions for the record `recordId`. */
const shardKey = (count: ShardedCount, recordId: number): Key => ({
  pk: count.partition,
  sk: `${SHARD_PREFIX}${String(recordId % count.shards).padStart(2, '0')}`,
});

const everyShard = (count: ShardedCount): Key[] => Array.from({ length: count.shards }, (_, shard) => shardKey(count, shard));

export interface Addition {
  /** The shard must exist (it was made by `createSteps`): else this error, as for a missing parent. */
  whileExists?: OnConditionFailed;
  /** The whole count may not pass `max` (a one-shard count only, created by its first addition): else this error. */
  atMost?: { max: number; full: OnConditionFailed };
}

/** The step that adds `delta` to the count for record `recordId`; two in one transaction on one shard are written summed (joined-steps.ts). */
export function addStep(count: ShardedCount, recordId: number, delta: number, options: Addition = {}): WriteStep {
  const shard = shardKey(count, recordId);
  const summed = (steps: readonly WriteStep[]) => [
    addStep(
      count,
      recordId,
      steps.reduce((sum, step) => sum + (deltas.get(step) ?? 0), 0),
      options,
    ),
  ];
  const step = joinable(additionStep(count, recordId, delta, options), `count\u0000${keyText(shard)}`, summed);
  deltas.set(step, delta);
  return step;
}

/** What each addition adds: what its transaction's additions to the same shard sum. */
const deltas = new WeakMap<WriteStep, number>();

function additionStep(count: ShardedCount, recordId: number, delta: number, { whileExists, atMost }: Addition): WriteStep {
  if (atMost && count.shards !== 1) throw new Error(`${count.partition}: a bound needs a count of one shard`);
  const conditions = [...(whileExists ? ['attribute_exists(pk)'] : []), ...(atMost && delta > 0 ? ['(attribute_not_exists(#n) OR #n <= :room)'] : [])];
  return update(
    shardKey(count, recordId),
    {
      update: 'ADD #n :delta',
      ...(conditions.length ? { condition: conditions.join(' AND ') } : {}),
      names: { '#n': VALUE },
      values: { ':delta': delta, ...(atMost && delta > 0 ? { ':room': atMost.max - delta } : {}) },
    },
    whileExists ?? atMost?.full,
  );
}

/** The steps that make every shard at zero (a count whose additions require its shards: `whileExists`). */
export const createSteps = (count: ShardedCount, start = 0): WriteStep[] => everyShard(count).map((key, shard) => put({ ...key, [VALUE]: shard === 0 ? start : 0 }, ABSENT));

/** Each shard's value as read, by sort key. */
export type ShardValues = ReadonlyMap<string, number>;

/** The shards' values, read consistently in one Query; undefined when the count has no shard at all. */
export async function readShards(count: ShardedCount): Promise<ShardValues | undefined> {
  const shards = await queryAll({
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': count.partition, ':prefix': SHARD_PREFIX },
    ConsistentRead: true,
  });
  return shards.length ? new Map(shards.map(StoredShard.parse).map((shard) => [shard.sk, shard[VALUE]])) : undefined;
}

export const sumOf = (shards: ShardValues | undefined): number => [...(shards?.values() ?? [])].reduce((sum, value) => sum + value, 0);

/** The count: the sum of its shards. Undefined when it has no shard at all. */
export async function readTotal(count: ShardedCount): Promise<number | undefined> {
  const shards = await readShards(count);
  return shards && sumOf(shards);
}

/**
 * The steps that delete every shard, on condition that each still holds what was read (`read`, whose
 * sum the caller judged): an addition since fails with `changed`.
 */
export const removeAsReadSteps = (count: ShardedCount, read: ShardValues | undefined, changed: OnConditionFailed): WriteStep[] =>
  everyShard(count).map((key) => {
    const value = read?.get(key.sk);
    return remove(key, value === undefined ? { expression: 'attribute_not_exists(pk)' } : { expression: '#n = :read', names: { '#n': VALUE }, values: { ':read': value } }, changed);
  });
