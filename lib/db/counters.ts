/**
 * Per-entity counters: the last id handed out, and how many records exist.
 *
 * Neither lives on an item that every create's transaction touches (DynamoDB cancels a transaction
 * on an item another one is writing): ids come from an atomic ADD on the ID item, which no
 * transaction ever includes, so concurrent allocations queue at DynamoDB's per-item write rate and
 * never conflict; the record count is a sharded count (sharded-count.ts), added to in the writes' own
 * transactions, one shard a record, and summed on read.
 */
import { defineStored } from './stored.js';
import * as v from 'valibot';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { request, tableName } from './client.js';
import { readItem } from './items.js';
import { gatheredPerTurn } from './per-turn.js';
import type { Key } from './keys.js';
import { addStep, readTotal, shardedCount, type ShardedCount } from './sharded-count.js';
import { keyAttributeNames, table } from './table.js';

/** The id counter's item: the last id handed out. */
const StoredIdCounter = defineStored('id counter', { lastId: v.number() });
import { remove, update, type WriteStep } from './transactions.js';

const indexKeyAttributes = new Set(keyAttributeNames().filter((name) => name !== table.partitionKey && name !== table.sortKey));

const COUNTER_PREFIX = 'COUNTER#';

/** Shards of an unbounded count: more than the creates a kind has in flight at once, so that consecutive ids never meet. */
export const COUNT_SHARDS = 32;

export interface Counter {
  /** The counter's name, e.g. CUSTOMER. */
  readonly name: string;
  /** The first id handed out (ids before it belong to seeded records). */
  readonly firstId: number;
  /** At most this many records; one more is refused with `full()`. */
  readonly max?: { count: number; full: () => Error } | undefined;
}

/**
 * The item that hands out ids. Its sort key is HEAD for the stores written before counts were
 * sharded, where HEAD held the last id too (lib/migrations/steps.ts moved their counts off it).
 */
export const idKey = (counter: Counter): Key => ({ pk: `${COUNTER_PREFIX}${counter.name}`, sk: 'HEAD' });

/** The record count's shards: one for a bounded count, which checks its bound in one condition. */
export const countOf = (counter: Counter): ShardedCount => shardedCount(`${COUNTER_PREFIX}${counter.name}`, counter.max ? 1 : COUNT_SHARDS);

/**
 * Hands out the next id. It is an atomic ADD outside the create's transaction, on an item no
 * transaction touches, so concurrent creates never contend on it; a create that then fails (409)
 * leaves a gap in the ids, as an SQL auto-increment does. Ids asked in one turn of the event loop by
 * one piece of work (a batch's rows planned at once) are handed out by one ADD of their number, in
 * the order they were asked: one request on the counter's item for a turn, not one a row.
 */
export const allocateId = (counter: Counter): Promise<number> => handOutIds(counter.name, counter);

/** One ADD of the number of ids a turn asked of a counter; each ask its id, in the order asked. */
const handOutIds = gatheredPerTurn<Counter, number>(async (asks) => {
  const [counter] = asks as [Counter];
  const result = await request((db, options) =>
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: idKey(counter),
        UpdateExpression: 'SET lastId = if_not_exists(lastId, :start) + :count',
        ExpressionAttributeValues: { ':start': counter.firstId - 1, ':count': asks.length },
        ReturnValues: 'UPDATED_NEW',
      }),
      options,
    ),
  );
  const lastId = StoredIdCounter.parse(result.Attributes ?? {}).lastId;
  return asks.map((_, k) => lastId - asks.length + 1 + k);
});

/**
 * Makes the ids handed out from now on come after `lastId`, for records written with ids of their
 * own (a store's import keeps its ids). It never moves the counter back.
 */
export async function reserveIdsThrough(counter: Counter, lastId: number): Promise<void> {
  try {
    await request((db, options) =>
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: idKey(counter),
          UpdateExpression: 'SET lastId = :lastId',
          ConditionExpression: 'attribute_not_exists(lastId) OR lastId < :lastId',
          ExpressionAttributeValues: { ':lastId': Math.max(lastId, counter.firstId - 1) },
        }),
        options,
      ),
    );
  } catch (error) {
    // The counter is already there or past it.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/**
 * The step that adds `delta` records to the count, on the shard of `recordId` (a batch of creates
 * may add them all on one shard: only the sum is read). Past the counter's `max`, an addition fails
 * with its `full()` error.
 */
export function countChange(counter: Counter, recordId: number, delta: number): WriteStep {
  return addStep(countOf(counter), recordId, delta, counter.max ? { atMost: { max: counter.max.count, full: counter.max.full } } : {});
}

/** The record count, exact whenever no write is in flight. */
export async function readCount(counter: Counter): Promise<number> {
  return (await readTotal(countOf(counter))) ?? 0;
}

/**
 * For a table written before counts were sharded, where the ID item (HEAD) also held the count and
 * sat at the head of the counted lists' index partitions, with a copy (TAIL) at their end: the
 * steps that move its count onto the shards and take both items out of the lists, in one
 * transaction, on condition that the count is still the one read. None when there is nothing to move.
 */
export async function unshardedCountSteps(counter: Counter): Promise<WriteStep[]> {
  const head = await readItem(idKey(counter));
  const listed = Object.keys(head ?? {}).filter((attribute) => indexKeyAttributes.has(attribute));
  if (!head || (head.count === undefined && !listed.length)) return [];
  const count = Number(head.count ?? 0);
  const names = Object.fromEntries([['#count', 'count'], ...listed.map((attribute, i) => [`#i${i}`, attribute])]);
  return [
    update(idKey(counter), {
      update: `REMOVE ${Object.keys(names).join(', ')}`,
      condition: head.count === undefined ? 'attribute_not_exists(#count)' : '#count = :count',
      names,
      ...(head.count === undefined ? {} : { values: { ':count': head.count } }),
    }),
    remove({ ...idKey(counter), sk: 'TAIL' }),
    ...(count ? [countChange(counter, 0, count)] : []),
  ];
}
