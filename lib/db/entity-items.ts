/**
 * A record as an item and back: its key, the index attributes of every order it is listed in (each
 * sort key under RECORD_SORT_PREFIX), and its fields; parsed back with the record's schema, which
 * drops what is not a field.
 */
import * as v from 'valibot';
import { isDeepStrictEqual } from 'node:util';
import { assertFitsOneItem } from './item-size.js';
import type { Item } from './items.js';
import { listPartitionOf, RECORD_SORT_PREFIX, type Key } from './keys.js';
import { keyAttributeNames, table } from './table.js';
import type { Id, ListDeclaration, StoredForms } from './entity-declaration.js';

/** The attributes the table and its indexes are keyed on: a replace sets those of the indexes whatever they were (and never the table's). */
const KEY_ATTRIBUTES = new Set(keyAttributeNames());

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

  /** The record's item, when it fits in one (else TooLarge, naming the record). */
  function fitting(record: R): Item {
    const item = toItem(record);
    assertFitsOneItem(item, `${name} ${id(record)}`);
    return item;
  }

  return {
    toItem,
    fromItem: (item: Item): R => v.parse(schema, item),
    fitting,

    /**
     * What replacing `current` by `next` writes, when the write is made at the version `current` was
     * read at (so the item holds `current`): the attributes of `next`'s item that differ from
     * `current`'s, and its index attributes as the declaration makes them now (a list declared after
     * the record was stored). A stock sync's row sets its stock, version and date, not the sixteen
     * attributes of a sale element: a smaller request and less to apply (`BENCH_ONLY=engine`), and an attribute another write set beside the
     * record's fields is left as it is. Checked to fit one item whole.
     */
    changedAttributes(current: R, next: R): Item {
      const before = toItem(current);
      return Object.fromEntries(Object.entries(fitting(next)).filter(([attribute, value]) => value !== undefined && (KEY_ATTRIBUTES.has(attribute) || !isDeepStrictEqual(before[attribute], value))));
    },

    /** The index attributes the declaration gives the record now (a list declared after it was stored). */
    indexAttributes(record: R): Item {
      const item = toItem(record);
      return Object.fromEntries(Object.values(table.indexes).flatMap(({ partitionKey, sortKey }) => (partitionKey in item ? [partitionKey, sortKey].map((a) => [a, item[a]]) : [])));
    },
  };
}
