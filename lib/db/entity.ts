/**
 * Declarative entities: a resource declares once how its records live in the single table (its
 * key, its list orders mapped to an index and sort key, its uniqueness locks, its counter), and
 * this module interprets the declaration: item ↔ record mapping, the index of an order, the lock
 * items' life cycle on create/replace/remove, and list queries that return a neutral page.
 * Operations work with records and never see a physical name. (ElectroDB's idea, in ~250 lines.)
 */
import * as v from 'valibot';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { request, tableName } from './client.js';
import { changeSteps, diffFields, type AuditDeclaration } from './changes.js';
import { allocateId, countChange, readCount, type Counter } from './counters.js';
import { Conflict, InvalidPosition } from './errors.js';
import { assertFitsOneItem } from './item-size.js';
import { queryAll, queryPages, readItem, readItems, type Item } from './items.js';
import { LIMITS } from '../limits.js';
import { boundedKeyPart, RECORD_SORT_PREFIX, type Key } from './keys.js';
import { positionOf, type Page, type PageRequest, type Position } from './page.js';
import { table, type IndexName } from './table.js';
import { ABSENT, atVersion, holds, patchStep, put, raced, remove, versionFailure, type OnConditionFailed, type Patch, type WriteStep } from './transactions.js';
import { isDeepStrictEqual } from 'node:util';

type Id = number | string;

export interface OrderDeclaration<R> {
  index: IndexName;
  /** The record's sort key in this order: unique per record (end it with the padded id). */
  sortKey: (record: R) => string;
}

export interface ListDeclaration<R> {
  /** The index partition of a record; filtered lists read it from the filtered fields. */
  partition: (record: Partial<R>) => string;
  orders: Record<string, OrderDeclaration<R>>;
  /** Whether the list shows the record count (the entity's counter) as its total. */
  counted?: boolean;
}

export interface LockDeclaration<R> {
  /** Key prefix of the lock items. */
  prefix: string;
  /** The value that must be unique among records... */
  valueOf: (record: R) => string;
  /** ...compared in this form (for example lower case). */
  normalize?: (value: string) => string;
  /** The form earlier versions compared it in: `relock` moves a lock kept under it to the current form. */
  formerly?: (value: string) => string;
  /** Record fields copied onto the lock item, so that one read by value finds them. */
  carry?: (record: R) => Item;
}

export interface EntityDeclaration<S extends v.GenericSchema<unknown, Item>, I extends Id, L extends string, K extends string> {
  /** What a record is called in errors: "customer", "tax rule". */
  name: string;
  /** The record's attributes: items are parsed with it, which also drops the key attributes. */
  schema: S;
  id: (record: v.InferOutput<S>) => I;
  key: (id: I) => Key;
  /**
   * Records kept in one partition of the table itself (a small set read whole, consistently). With a
   * `summary`, each record also has a small item beside it holding only what sorting the set needs
   * (ids and titles, say), written in the same transactions: a list sorts the summaries and then
   * reads only its page's records, so its cost is bounded by the page, not by the records' size.
   */
  collection?: { partition: string; sortPrefix: string; summary?: { sortPrefix: string; fields: (record: v.InferOutput<S>) => Item } };
  lists?: Record<L, ListDeclaration<v.InferOutput<S>>>;
  locks?: Record<K, LockDeclaration<v.InferOutput<S>>>;
  /** The id counter and the record count (shown by the counted lists); `firstId` defaults to 1; at most `max` records. */
  counter?: { name: string; firstId?: number; max?: number };
  /**
   * Records whose creates, replaces and removes record a change (changes.ts) in the same
   * transaction: the resource's name in changes, the fields its rows show, and (for records that
   * carry none) the record's version.
   */
  audit?: AuditDeclaration<v.InferOutput<S>> & { version?: (record: v.InferOutput<S>) => number };
}

/**
 * What every versioned record holds besides its fields: its version (VERSION, the ETag), its dates,
 * and, for a record a store's import wrote, the version it wrote (equal to `version` while nobody
 * changed it since) and the source's `updated_at` then.
 */
export const versionedEntries = {
  version: v.number(),
  importedVersion: v.optional(v.number()),
  sourceUpdatedAt: v.optional(v.string()),
  createdAt: v.string(),
  updatedAt: v.string(),
};

/** Records that carry their version (VERSION, the ETag), checked by replace and remove. */
export interface Versioned {
  version: number;
}

export interface ListQuery<R> {
  /** The filtered fields that pick a filtered list's partition. */
  where?: Partial<R>;
  order: string;
  reverse: boolean;
  /**
   * Only the records whose sort key in this order is at least this (`updated_since` on the order of
   * updates: a range of the index itself, its reads still bounded by the page). A ranged page has no
   * total of its own: the list's count is the whole partition's.
   */
  from?: string;
}

const LOCK_SORT_KEY = 'LOCK';
const LOCK_OWNER = 'ownerId';

export function defineEntity<S extends v.GenericSchema<unknown, Item>, I extends Id, L extends string = never, K extends string = never>(declaration: EntityDeclaration<S, I, L, K>) {
  type R = v.InferOutput<S>;
  const { name, schema, id, key } = declaration;
  const lists = Object.entries(declaration.lists ?? {}) as [L, ListDeclaration<R>][];
  const locks = Object.entries(declaration.locks ?? {}) as [K, LockDeclaration<R>][];

  const max = declaration.counter?.max;
  const counter: Counter | undefined = declaration.counter && {
    name: declaration.counter.name,
    firstId: declaration.counter.firstId ?? 1,
    max: max === undefined ? undefined : { count: max, full: () => new Conflict(`a store holds at most ${max} records of ${name}`) },
  };

  function toItem(record: R): Item {
    const indexed: Item = {};
    for (const [, list] of lists) {
      for (const order of Object.values(list.orders)) {
        const { partitionKey, sortKey } = table.indexes[order.index];
        indexed[partitionKey] = list.partition(record);
        indexed[sortKey] = RECORD_SORT_PREFIX + order.sortKey(record);
      }
    }
    return { ...key(id(record)), ...indexed, ...record };
  }

  const fromItem = (item: Item): R => v.parse(schema, item);
  /** The record's item, when it fits in one (else TooLarge, naming the record). */
  const fitting = (record: R): Item => {
    const item = toItem(record);
    assertFitsOneItem(item, `${name} ${id(record)}`);
    return item;
  };
  const collection = declaration.collection;
  // The summaries, when the collection keeps them, with where they live: its partition.
  const summary = collection?.summary && { ...collection.summary, partition: collection.partition, recordPrefix: collection.sortPrefix };
  /** The key of a record's summary: the record's own sort key, under the summaries' prefix. */
  const summaryKey = (summaries: NonNullable<typeof summary>, recordId: I): Key => ({
    pk: summaries.partition,
    sk: `${summaries.sortPrefix}${key(recordId).sk.slice(summaries.recordPrefix.length)}`,
  });
  /** The step that writes a record's summary (a put: it is derived, whatever was there). */
  const summaryStep = (record: R): WriteStep[] => (summary ? [put({ ...summaryKey(summary, id(record)), id: id(record), ...summary.fields(record) })] : []);

  // What a replace never writes: the key.
  const unreplaced = new Set<string>([table.partitionKey, table.sortKey]);

  const audit = declaration.audit;
  const versionOf = (record: R): number => audit?.version?.(record) ?? Number((record as Partial<Versioned>).version ?? 1);
  /** The steps that record how a record changed (none when the entity is not audited). */
  const recorded = (before: R | undefined, after: R | undefined): WriteStep[] => {
    const record = after ?? before;
    if (!audit || record === undefined) return [];
    const type = before === undefined ? 'created' : after === undefined ? 'deleted' : 'updated';
    // A record's last change is dated by its `updatedAt`, where it has one: the new change comes after it.
    const previousAt = (before as { updatedAt?: unknown } | undefined)?.updatedAt;
    return changeSteps(
      audit.resource,
      id(record),
      type,
      versionOf(record),
      diffFields(before && audit.fields(before), after && audit.fields(after)),
      typeof previousAt === 'string' ? previousAt : undefined,
    );
  };

  function lockOf(lockName: K): LockDeclaration<R> {
    const lock = declaration.locks?.[lockName];
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

  function listOf(listName: L): ListDeclaration<R> {
    const list = declaration.lists?.[listName];
    if (!list) throw new Error(`${name} has no list ${listName}`);
    return list;
  }

  return {
    name,
    key,
    toItem,
    fromItem,

    async read(recordId: I): Promise<R | undefined> {
      const item = await readItem(key(recordId));
      return item && fromItem(item);
    },

    /** Records by id, one batch read per 100 ids, in no particular order. */
    async readMany(ids: readonly I[]): Promise<R[]> {
      return (await readItems([...new Set(ids)].map(key))).map(fromItem);
    },

    /** Every record: the collection read consistently, else the first list walked to its end. */
    async readAll(): Promise<R[]> {
      const records: R[] = [];
      for await (const page of this.pages()) records.push(...page);
      return records;
    },

    /** Every record, a page at a time (as readAll reads them): for walks too large to hold at once. */
    async *pages(): AsyncGenerator<R[]> {
      const collection = declaration.collection;
      if (collection) {
        const items = queryPages({
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': collection.partition, ':prefix': collection.sortPrefix },
          ConsistentRead: true,
        });
        for await (const page of items) yield page.map(fromItem);
        return;
      }
      const [first] = lists;
      const order = first && Object.values(first[1].orders)[0];
      if (!first || !order) throw new Error(`${name} has neither a collection nor a list`);
      const index = table.indexes[order.index];
      const items = queryPages({
        IndexName: order.index,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': index.partitionKey },
        ExpressionAttributeValues: { ':pk': first[1].partition({}) },
      });
      for await (const page of items) yield page.map(fromItem);
    },

    /**
     * Every record's summary (the collection's `summary` fields and its id), read consistently: what a
     * list of the collection sorts before it reads only its page's records (`readMany`).
     */
    async readSummaries(): Promise<Item[]> {
      if (!summary) throw new Error(`${name} keeps no summaries`);
      return queryAll({
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': summary.partition, ':prefix': summary.sortPrefix },
        ConsistentRead: true,
      });
    },

    /** The steps that write the summaries of records stored before the entity kept them (a migration). */
    summarize: (record: R): WriteStep[] => summaryStep(record),

    lockKey,
    /** The id of the record a lock item belongs to. */
    lockOwner: (item: Item): I | undefined => item[LOCK_OWNER] as I | undefined,

    /** The record holding a unique value (two reads: the lock, then the record). */
    async findByLock(lockName: K, value: string): Promise<R | undefined> {
      const owner = await this.ownerByLock(lockName, value);
      return owner === undefined ? undefined : this.read(owner);
    },

    /** The id of the record holding a unique value: the lock alone, one read, for a caller that reads the record itself. */
    async ownerByLock(lockName: K, value: string): Promise<I | undefined> {
      const lock = await readItem(lockKey(lockName, value));
      return lock?.[LOCK_OWNER] as I | undefined;
    },

    /** The id counter and record count, when the entity has one. */
    counter,

    /** The next id (counter.firstId the first time). */
    allocateId(): Promise<number> {
      if (!counter) throw new Error(`${name} has no counter`);
      return allocateId(counter);
    },

    /**
     * Steps that write new records, take their locks and count them (one transaction holds 100
     * steps; a batch counts its records on one shard of the count).
     */
    create(...records: R[]): WriteStep[] {
      return [
        ...records.flatMap((record) => [
          put(fitting(record), ABSENT, () => new Conflict(`${name} ${id(record)} already exists`)),
          ...summaryStep(record),
          ...locks.map(([lockName]) => put(lockItem(lockName, record), ABSENT, taken(lockName))),
          ...recorded(undefined, record),
        ]),
        ...(counter && records[0] ? [countChange(counter, Number(id(records[0])), records.length)] : []),
      ];
    },

    /** A step that writes a record as it is, whatever was there (tooling, bootstrap keys). */
    overwrite(record: R): WriteStep {
      return put(toItem(record));
    },

    /**
     * Steps that replace `current` with `next` at the version the caller expects (else the one read),
     * moving each lock whose value changed and refreshing those whose carried fields did. The record
     * is updated in place: what its item holds beyond the record's fields stays as it is.
     */
    replace(current: R & Versioned, next: R & Versioned, expectedVersion: number | undefined): WriteStep[] {
      const fields = Object.entries(fitting(next)).filter(([field, value]) => value !== undefined && !unreplaced.has(field));
      const steps = [patchStep(key(id(current)), { set: Object.fromEntries(fields), when: { version: expectedVersion ?? current.version } }, versionFailure(name, expectedVersion))];
      if (summary && !isDeepStrictEqual(summary.fields(current), summary.fields(next))) steps.push(...summaryStep(next));
      steps.push(...recorded(current, next));
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

    /** Steps that delete `current` at the expected version, free its locks and uncount it. */
    remove(current: R & Versioned, expectedVersion: number | undefined): WriteStep[] {
      return [
        remove(key(id(current)), atVersion(expectedVersion, current.version), versionFailure(name, expectedVersion)),
        ...(summary ? [remove(summaryKey(summary, id(current)))] : []),
        ...locks.map(([lockName, lock]) => remove(lockKey(lockName, lock.valueOf(current)), ownedBy(current), raced)),
        ...(counter ? [countChange(counter, Number(id(current)), -1)] : []),
        ...recorded(current, undefined),
      ];
    },

    /**
     * The steps that record a change a write makes its own way (a `patch`), given the record before
     * and after it: for the writes that are neither a create, a replace nor a remove.
     */
    recordChange: (before: R | undefined, after: R | undefined): WriteStep[] => recorded(before, after),

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
        if (kept?.[LOCK_OWNER] !== id(record)) continue;
        steps.push(remove(former, ownedBy(record), raced), put(lockItem(lockName, record), ABSENT, taken(lockName)));
      }
      return steps;
    },

    /**
     * A step that writes the record's index attributes as the declaration makes them now (a list
     * declared after the record was stored), and `also` of its fields, at the version read: a
     * record written since was written with them.
     */
    reindex: (record: R & Versioned, also: Partial<R> = {}): WriteStep => {
      const item = toItem(record);
      const indexed = Object.fromEntries(Object.values(table.indexes).flatMap(({ partitionKey, sortKey }) => (partitionKey in item ? [partitionKey, sortKey].map((a) => [a, item[a]]) : [])));
      return patchStep(key(id(record)), { set: { ...indexed, ...also }, when: { version: record.version } }, raced);
    },

    /** A step that changes some attributes of an existing record in place. */
    patch: (recordId: I, patch: Patch<R>, onConditionFailed?: OnConditionFailed): WriteStep => patchStep(key(recordId), patch, onConditionFailed),

    /** A step that changes the fields a lock item carries, in place. */
    patchLock: (lockName: K, value: string, patch: Patch<R>, onConditionFailed?: OnConditionFailed): WriteStep => patchStep(lockKey(lockName, value), patch, onConditionFailed),

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
