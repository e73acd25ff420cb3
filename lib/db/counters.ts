/**
 * Per-entity counters: the last id handed out, and how many records exist. Each counted list
 * partition has two counter items, one sorting before every row (HEAD) and one after (TAIL), both
 * kept in the same transactions as the writes; so whichever way a list is read, its first item is
 * a counter and the first page plus the total costs one Query.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { request, tableName } from './client.js';
import { readItem, type Item } from './items.js';
import { SORT_FIRST, SORT_LAST, type Key } from './keys.js';
import { table, type IndexName } from './table.js';
import { update, type WriteStep } from './transactions.js';

const COUNTER_PREFIX = 'COUNTER#';

export interface CounterPlacement {
  index: IndexName;
  partition: string;
}

export interface Counter {
  /** The counter's name, e.g. CUSTOMER. */
  readonly name: string;
  /** The first id handed out (ids before it belong to seeded records). */
  readonly firstId: number;
  /** Every index partition that lists all records, where the counter items sit at both ends. */
  readonly placements: readonly CounterPlacement[];
  /** At most this many records; one more is refused with `full()`. */
  readonly max?: { count: number; full: () => Error } | undefined;
}

const counterKey = (name: string, end: 'HEAD' | 'TAIL'): Key => ({ pk: `${COUNTER_PREFIX}${name}`, sk: end });

function placement(counter: Counter, end: 'HEAD' | 'TAIL') {
  const names: Record<string, string> = {};
  const values: Item = counter.placements.length ? { ':end': end === 'HEAD' ? SORT_FIRST : SORT_LAST } : {};
  const sets = counter.placements.map(({ index, partition }, i) => {
    const { partitionKey, sortKey } = table.indexes[index];
    names[`#p${i}`] = partitionKey;
    names[`#s${i}`] = sortKey;
    values[`:p${i}`] = partition;
    return `#p${i} = :p${i}, #s${i} = :end`;
  });
  return { sets, names, values };
}

/**
 * Hands out the next id. It is an atomic ADD outside the create's transaction, so concurrent
 * creates never contend on it; a create that then fails (409) leaves a gap in the ids, as an SQL
 * auto-increment does.
 */
export async function allocateId(counter: Counter): Promise<number> {
  const { sets, names, values } = placement(counter, 'HEAD');
  const result = await request((db, options) =>
    db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: counterKey(counter.name, 'HEAD'),
        UpdateExpression: `SET ${['lastId = if_not_exists(lastId, :start) + :one', ...sets].join(', ')}`,
        ...(sets.length ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: { ...values, ':start': counter.firstId - 1, ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    options),
  );
  return Number(result.Attributes?.lastId);
}

/**
 * Makes the ids handed out from now on come after `lastId`, for records written with ids of their
 * own (a store's import keeps its ids). It never moves the counter back.
 */
export async function reserveIdsThrough(counter: Counter, lastId: number): Promise<void> {
  const { sets, names, values } = placement(counter, 'HEAD');
  try {
    await request((db, options) =>
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: counterKey(counter.name, 'HEAD'),
          UpdateExpression: `SET ${['lastId = :lastId', ...sets].join(', ')}`,
          ConditionExpression: 'attribute_not_exists(lastId) OR lastId < :lastId',
          ...(sets.length ? { ExpressionAttributeNames: names } : {}),
          ExpressionAttributeValues: { ...values, ':lastId': Math.max(lastId, counter.firstId - 1) },
        }),
      options),
    );
  } catch (error) {
    // The counter is already there or past it.
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/**
 * The transaction steps that add `delta` to the record count: on the HEAD item, and on the TAIL too
 * when lists show it. Past the counter's `max`, an addition fails with its `full()` error.
 */
export function countChange(counter: Counter, delta: number): WriteStep[] {
  const ends = counter.placements.length ? (['HEAD', 'TAIL'] as const) : (['HEAD'] as const);
  return ends.map((end) => {
    const { sets, names, values } = placement(counter, end);
    const bounded = delta > 0 && end === 'HEAD' ? counter.max : undefined;
    return update(
      counterKey(counter.name, end),
      {
        update: `${sets.length ? `SET ${sets.join(', ')} ` : ''}ADD #count :delta`,
        names: { ...names, '#count': 'count' },
        values: { ...values, ':delta': delta, ...(bounded ? { ':room': bounded.count - delta } : {}) },
        ...(bounded ? { condition: 'attribute_not_exists(#count) OR #count <= :room' } : {}),
      },
      bounded?.full,
    );
  });
}

/** The count an item read from a list partition holds, when it is one of the counters. */
export function counterValue(item: Item): number | undefined {
  return typeof item.pk === 'string' && item.pk.startsWith(COUNTER_PREFIX) ? Number(item.count ?? 0) : undefined;
}

/** The record count alone (a page reached by a cursor does not pass the HEAD counter item). */
export async function readCount(counter: Counter): Promise<number> {
  const item = await readItem(counterKey(counter.name, 'HEAD'));
  return Number(item?.count ?? 0);
}
