/**
 * A record as an item and back: its key, the index attributes of every order it is listed in (each
 * sort key under RECORD_SORT_PREFIX), and its fields; parsed back with the record's schema, which
 * drops what is not a field.
 */
import * as v from 'valibot';
import { assertFitsOneItem } from './item-size.js';
import type { Item } from './items.js';
import { listPartitionOf, RECORD_SORT_PREFIX, type Key } from './keys.js';
import { table } from './table.js';
import type { Id, ListDeclaration, StoredForms } from './entity-declaration.js';

export function itemsOf<R extends Item, I extends Id>(entity: {
  name: string;
  schema: v.GenericSchema<unknown, R>;
  id: (record: R) => I;
  key: (id: I) => Key;
  lists: readonly ListDeclaration<R>[];
  storedAs?: StoredForms<R> | undefined;
}) {
  const { name, schema, id, key, lists } = entity;
  const storedAs: StoredForms<R> = entity.storedAs ?? {};
  /** The record's fields as stored: those declared in another form mapped to it. */
  const stored = (record: R): Item =>
    Object.fromEntries(
      Object.entries(record).map(([field, value]) => {
        const form = storedAs[field as keyof R] as ((value: unknown) => unknown) | undefined;
        return [field, form && value !== undefined ? form(value) : value];
      }),
    );

  function toItem(record: R): Item {
    const indexed: Item = {};
    for (const list of lists) {
      for (const order of Object.values(list.orders)) {
        const { partitionKey, sortKey } = table.indexes[order.index];
        indexed[partitionKey] = listPartitionOf(list, record, id(record));
        indexed[sortKey] = RECORD_SORT_PREFIX + order.sortKey(record);
      }
    }
    return { ...key(id(record)), ...indexed, ...stored(record) };
  }

  return {
    toItem,
    fromItem: (item: Item): R => v.parse(schema, item),

    /** The record's item, when it fits in one (else TooLarge, naming the record). */
    fitting(record: R): Item {
      const item = toItem(record);
      assertFitsOneItem(item, `${name} ${id(record)}`);
      return item;
    },

    /** The index attributes the declaration gives the record now (a list declared after it was stored). */
    indexAttributes(record: R): Item {
      const item = toItem(record);
      return Object.fromEntries(Object.values(table.indexes).flatMap(({ partitionKey, sortKey }) => (partitionKey in item ? [partitionKey, sortKey].map((a) => [a, item[a]]) : [])));
    },
  };
}
