/**
 * Per-kind counters: the last id handed out, and how many records exist. Each list partition has
 * two counter items, one sorting before every row (HEAD) and one after (TAIL), both kept in the
 * same transactions as the writes; so whichever way a list is read, its first item is a counter
 * and the first page plus the total costs one Query.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client.js';
import { keys, SORT_FIRST, SORT_LAST } from './keys.js';
import { table, type IndexName } from './table.js';
import { update, type WriteStep } from './transactions.js';

export interface CountedList {
  /** The counter's name, e.g. CUSTOMER. */
  readonly kind: string;
  /** Every index partition that lists all records of this kind, with their counter items. */
  readonly partitions: ReadonlyArray<{ index: IndexName; partition: string }>;
}

const placement = (list: CountedList, end: 'HEAD' | 'TAIL') => {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = list.partitions.length ? { ':end': end === 'HEAD' ? SORT_FIRST : SORT_LAST } : {};
  const sets = list.partitions.map(({ index, partition }, i) => {
    const { partitionKey, sortKey } = table.indexes[index];
    names[`#p${i}`] = partitionKey;
    names[`#s${i}`] = sortKey;
    values[`:p${i}`] = partition;
    return `#p${i} = :p${i}, #s${i} = :end`;
  });
  return { sets, names, values };
};

/**
 * Hands out the next id; the first id is `firstId` (new ids start after the seeded records). It is
 * an atomic ADD outside the create's transaction, so concurrent creates never contend on it; a
 * create that then fails (409) leaves a gap in the ids, as an SQL auto-increment does.
 */
export async function allocateId(list: CountedList, firstId = 1): Promise<number> {
  const { sets, names, values } = placement(list, 'HEAD');
  const result = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.counter(list.kind, 'HEAD'),
      UpdateExpression: `SET ${['lastId = if_not_exists(lastId, :start) + :one', ...sets].join(', ')}`,
      ...(sets.length ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: { ...values, ':start': firstId - 1, ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(result.Attributes?.lastId);
}

/** The transaction steps that add `delta` to the record count of a list. */
export function countChange(list: CountedList, delta: 1 | -1): WriteStep[] {
  return (['HEAD', 'TAIL'] as const).map((end) => {
    const { sets, names, values } = placement(list, end);
    return update(keys.counter(list.kind, end), {
      update: `SET ${sets.join(', ')} ADD #count :delta`,
      names: { ...names, '#count': 'count' },
      values: { ...values, ':delta': delta },
    });
  });
}

/** Whether an item read from a list partition is one of its counters, and the count it holds. */
export function counterValue(item: Record<string, unknown>): number | undefined {
  return typeof item.pk === 'string' && item.pk.startsWith('COUNTER#') ? Number(item.count ?? 0) : undefined;
}
