/**
 * An entity's lists: one page of a list in one of its orders (a Query of that order's index, walked
 * past an offset or from a signed position, and ranged from a sort key; a sharded list's shards
 * queried at once and merged in order), a counted list's total read beside it; and every record,
 * page by page (its collection read consistently, else its first list).
 */
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { readCount, type Counter } from './counters.js';
import { InvalidPosition } from './errors.js';
import { queryPage, queryPages, type Item } from './items.js';
import { compareKeys, RECORD_SORT_PREFIX, shardPartition } from './keys.js';
import { positionOf, type Page, type PageRequest, type Position } from './page.js';
import { table } from './table.js';
import type { CollectionDeclaration, Id, ListDeclaration, ListQuery } from './entity-declaration.js';

/** A list's index partitions: its own, or each of its shards. */
const partitionsOf = <R>(list: ListDeclaration<R>, where: Partial<R>): string[] => {
  const partition = list.partition(where);
  return list.shards ? Array.from({ length: list.shards }, (_, shard) => shardPartition(partition, shard)) : [partition];
};

/** One partition of a list read in order a Query at a time, as the merge asks for more of it. */
function partitionReader(input: Omit<QueryCommandInput, 'TableName' | 'Limit' | 'ExclusiveStartKey'>, excluded: (item: Item) => boolean) {
  let startKey: Item | undefined;
  let done = false;
  const buffer: Item[] = [];
  return {
    buffer,
    /** Whether it has items left that it has not read yet. */
    more: () => !done,
    async read(limit: number): Promise<void> {
      const page = await queryPage({ ...input, Limit: limit, ...(startKey ? { ExclusiveStartKey: startKey } : {}) });
      buffer.push(...page.items.filter((item) => !excluded(item)));
      startKey = page.next;
      done = !startKey;
    },
  };
}

/**
 * The first `wanted` items of several partitions of one index, merged by their sort key (each
 * partition is in order): every partition read at once for its share (a quarter more than an even
 * one, so that a page seldom reads one again: records spread by id are not spread evenly in every
 * order), then, while merging, a partition whose read items are all taken is read again, for as
 * much, before the next item is chosen.
 */
async function merged(readers: ReturnType<typeof partitionReader>[], wanted: number, sortKey: string, reverse: boolean): Promise<Item[]> {
  const share = readers.length === 1 ? wanted : Math.ceil((wanted * 1.25) / readers.length) + 2;
  await Promise.all(readers.map((reader) => reader.read(share)));
  const items: Item[] = [];
  const before = (a: Item, b: Item) => (reverse ? -1 : 1) * compareKeys(String(a[sortKey]), String(b[sortKey])) <= 0;
  while (items.length < wanted) {
    const emptied = readers.filter((reader) => reader.buffer.length === 0 && reader.more());
    await Promise.all(emptied.map((reader) => reader.read(Math.min(share, wanted - items.length))));
    // The partition whose next item sorts first (every partition with items left has read its next one).
    let first: { reader: (typeof readers)[number]; item: Item } | undefined;
    for (const reader of readers) {
      const [item] = reader.buffer;
      if (item && (!first || !before(first.item, item))) first = { reader, item };
    }
    if (!first) break;
    first.reader.buffer.shift();
    items.push(first.item);
  }
  return items;
}

export function listsOf<R, I extends Id, L extends string>(entity: {
  name: string;
  id: (record: R) => I;
  fromItem: (item: Item) => R;
  lists: Partial<Record<L, ListDeclaration<R>>> | undefined;
  collection: CollectionDeclaration<R> | undefined;
  counter: Counter | undefined;
  walk: (() => AsyncGenerator<R[]>) | undefined;
}) {
  const { name, id, fromItem, counter } = entity;

  function listOf(listName: L): ListDeclaration<R> {
    const list = entity.lists?.[listName];
    if (!list) throw new Error(`${name} has no list ${listName}`);
    return list;
  }

  return {
    /** Every record, a page at a time: the collection read consistently, else the declared walk, else the first list walked to its end. */
    async *pages(): AsyncGenerator<R[]> {
      if (entity.walk) {
        yield* entity.walk();
        return;
      }
      const collection = entity.collection;
      if (collection) {
        const items = queryPages({
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': collection.partition, ':prefix': collection.sortPrefix },
          ConsistentRead: true,
        });
        for await (const page of items) yield page.map(fromItem);
        return;
      }
      const [first] = Object.values<ListDeclaration<R> | undefined>(entity.lists ?? {});
      const order = first && Object.values(first.orders)[0];
      if (!first || !order) throw new Error(`${name} has neither a collection nor a list`);
      // A list partitioned by a field of its records (an owner's) holds some of them only: walking one would be a silent nothing.
      const partition = first.partition({} as R);
      if (partition.includes('undefined')) throw new Error(`${name}'s first list is partitioned per record (${partition}): declare how every record is walked`);
      const index = table.indexes[order.index];
      // A sharded list's records are in its shards, and those stored before it was sharded in its own
      // partition until a migration lists them again (lib/migrations/steps.ts, 011): read last, so
      // that a record the migration moves into its shard meanwhile is not met twice.
      for (const pk of first.shards ? [...partitionsOf(first, {}), partition] : [partition]) {
        const items = queryPages({
          IndexName: order.index,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': index.partitionKey },
          ExpressionAttributeValues: { ':pk': pk },
        });
        for await (const page of items) yield page.map(fromItem);
      }
    },

    /**
     * One page of a list, in an order, either way, and a counted list's total read beside it (two
     * Queries at once); offsets are walked through.
     */
    async list(listName: L, query: ListQuery<R>, page: PageRequest): Promise<Page<R>> {
      const list = listOf(listName);
      const order = list.orders[query.order];
      if (!order) throw new Error(`${name} list ${listName} has no order ${query.order}`);
      const { partitionKey, sortKey } = table.indexes[order.index];
      let after: string | undefined;
      if (page.after) {
        const [sortValue, recordId] = positionOf(page.after, 2);
        if (typeof sortValue !== 'string' || recordId === undefined) throw new InvalidPosition();
        // Sort keys end with the record's id: the position's own item is the only one with its key.
        after = RECORD_SORT_PREFIX + sortValue;
      }
      const skip = page.after ? 0 : page.offset;
      // One more than the page, to know whether a next page exists.
      const wanted = skip + page.limit + 1;
      const ranged = query.from !== undefined;
      const from = RECORD_SORT_PREFIX + (query.from ?? '');
      // Past the position, within the range: one condition on the sort key (a reverse page of a range, between the two, its position left out).
      const [condition, values, excluded]: [string, Item, (item: Item) => boolean] =
        after === undefined
          ? [ranged ? ' AND #sk >= :from' : '', ranged ? { ':from': from } : {}, () => false]
          : !query.reverse
            ? [' AND #sk > :after', { ':after': after }, () => false]
            : ranged
              ? [' AND #sk BETWEEN :from AND :after', { ':from': from, ':after': after }, (item) => item[sortKey] === after]
              : [' AND #sk < :after', { ':after': after }, () => false];
      const readers = partitionsOf(list, query.where ?? {}).map((partition) =>
        partitionReader(
          {
            IndexName: order.index,
            KeyConditionExpression: `#pk = :pk${condition}`,
            ExpressionAttributeNames: { '#pk': partitionKey, ...(condition ? { '#sk': sortKey } : {}) },
            ExpressionAttributeValues: { ':pk': partition, ...values },
            ScanIndexForward: !query.reverse,
          },
          excluded,
        ),
      );
      const readItems = () => merged(readers, wanted, sortKey, Boolean(query.reverse));
      const counted = list.counted && !ranged;
      const [items, total] = await Promise.all([readItems(), counted && counter ? readCount(counter) : undefined]);
      const rows = items.map(fromItem);
      const pageRows = rows.slice(skip, skip + page.limit);
      const positions: Position[] = pageRows.map((row) => [order.sortKey(row), id(row)]);
      return {
        items: pageRows,
        next: rows.length > skip + page.limit ? positions.at(-1) : undefined,
        positions,
        ...(counted ? { total: total ?? 0 } : {}),
      };
    },
  };
}
