/**
 * An entity's lists: one page of a list in one of its orders (a Query of that order's index, walked
 * past an offset or from a signed position, and ranged from a sort key), a counted list's total read
 * beside it; and every record, page by page (its collection read consistently, else its first list).
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { request, tableName } from './client.js';
import { readCount, type Counter } from './counters.js';
import { InvalidPosition } from './errors.js';
import { queryPages, type Item } from './items.js';
import { RECORD_SORT_PREFIX, type Key } from './keys.js';
import { positionOf, type Page, type PageRequest, type Position } from './page.js';
import { table } from './table.js';
import type { CollectionDeclaration, Id, ListDeclaration, ListQuery } from './entity-declaration.js';

export function listsOf<R, I extends Id, L extends string>(entity: {
  name: string;
  id: (record: R) => I;
  key: (id: I) => Key;
  fromItem: (item: Item) => R;
  lists: Partial<Record<L, ListDeclaration<R>>> | undefined;
  collection: CollectionDeclaration<R> | undefined;
  counter: Counter | undefined;
  walk: (() => AsyncGenerator<R[]>) | undefined;
}) {
  const { name, id, key, fromItem, counter } = entity;

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
      const items = queryPages({
        IndexName: order.index,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': index.partitionKey },
        ExpressionAttributeValues: { ':pk': first.partition({}) },
      });
      for await (const page of items) yield page.map(fromItem);
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
      const partition = list.partition(query.where ?? {});
      let startKey: Item | undefined;
      if (page.after) {
        const [sortValue, recordId] = positionOf(page.after, 2);
        if (typeof sortValue !== 'string' || recordId === undefined) throw new InvalidPosition();
        // The id came from this list's own page (the position is signed by the edge).
        startKey = { ...key(recordId as I), [partitionKey]: partition, [sortKey]: RECORD_SORT_PREFIX + sortValue };
      }
      const skip = page.after ? 0 : page.offset;
      // One more than the page, to know whether a next page exists.
      const wanted = skip + page.limit + 1;
      const ranged = query.from !== undefined;
      const readItems = async (): Promise<Item[]> => {
        const items: Item[] = [];
        do {
          const from = startKey;
          const result = await request((db, options) =>
            db.send(
              new QueryCommand({
                TableName: tableName(),
                IndexName: order.index,
                KeyConditionExpression: ranged ? '#pk = :pk AND #sk >= :from' : '#pk = :pk',
                ExpressionAttributeNames: { '#pk': partitionKey, ...(ranged && { '#sk': sortKey }) },
                ExpressionAttributeValues: { ':pk': partition, ...(ranged && { ':from': RECORD_SORT_PREFIX + query.from }) },
                ScanIndexForward: !query.reverse,
                Limit: wanted - items.length,
                ...(from ? { ExclusiveStartKey: from } : {}),
              }),
              options,
            ),
          );
          items.push(...(result.Items ?? []));
          startKey = result.LastEvaluatedKey;
        } while (startKey && items.length < wanted);
        return items;
      };
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
