/**
 * Declarative entities: a resource declares once how its records live in the single table
 * (entity-declaration.ts), and `defineEntity` interprets the declaration, one concern a module:
 * a record as an item and back (entity-items.ts), its uniqueness locks (entity-locks.ts), its
 * collection's summaries (entity-summaries.ts), the changes it records (entity-audit.ts), its lists
 * (entity-lists.ts), and its id counter (counters.ts). What composes them here is the steps of a
 * record's life: created, replaced, removed, reindexed. Operations work with records and never see
 * a physical name. (ElectroDB's idea.)
 */
import type * as v from 'valibot';
import { allocateId, countChange, type Counter } from './counters.js';
import { isDeepStrictEqual } from 'node:util';
import { Conflict, VersionMismatch } from './errors.js';

/** What says when a record was written, not what it holds. */
const UNCOMPARED = new Set(['version', 'updatedAt', 'importedVersion', 'sourceUpdatedAt']);
import { readItem, readItems, type Item } from './items.js';
import { ABSENT, atVersion, patchStep, put, raced, remove, versionFailure, type OnConditionFailed, type Patch, type WriteStep } from './transactions.js';
import { table } from './table.js';
import { auditOf } from './entity-audit.js';
import type { WriteStamp } from './stamp.js';
import type { EntityDeclaration, Id, ListDeclaration, Versioned } from './entity-declaration.js';
import { itemsOf } from './entity-items.js';
import { listsOf } from './entity-lists.js';
import { locksOf } from './entity-locks.js';
import { summariesOf } from './entity-summaries.js';

export type { EntityDeclaration, ListDeclaration, ListQuery, LockDeclaration, OrderDeclaration, Versioned } from './entity-declaration.js';
export { versionedEntries } from './entity-declaration.js';

export function defineEntity<S extends v.GenericSchema<unknown, Item>, I extends Id, L extends string = never, K extends string = never>(declaration: EntityDeclaration<S, I, L, K>) {
  type R = v.InferOutput<S>;
  const { name, schema, id, key } = declaration;

  const max = declaration.counter?.max;
  const counter: Counter | undefined = declaration.counter && {
    name: declaration.counter.name,
    firstId: declaration.counter.firstId ?? 1,
    max: max === undefined ? undefined : { count: max, full: () => new Conflict(`a store holds at most ${max} records of ${name}`) },
  };
  const items = itemsOf<R, I>({ name, schema, id, key, lists: Object.values(declaration.lists ?? {}) as ListDeclaration<R>[], storedAs: declaration.storedAs });
  const { pendingLog } = declaration;
  const whenEmpty = pendingLog === undefined ? [] : [pendingLog];
  const locks = locksOf<R, I, K>({ name, id, locks: declaration.locks });
  const summaries = summariesOf<R, I>({ name, id, key, collection: declaration.collection });
  const recorded = auditOf<R, I>({ id, audit: declaration.audit });
  const lists = listsOf<R, I, L>({ name, id, fromItem: items.fromItem, lists: declaration.lists, collection: declaration.collection, counter, walk: declaration.walk });
  // What a replace never writes: the key, and the log that writes outside it append to.
  const unreplaced = new Set<string>([table.partitionKey, table.sortKey, ...whenEmpty]);

  return {
    name,
    key,
    toItem: items.toItem,
    fromItem: items.fromItem,

    async read(recordId: I): Promise<R | undefined> {
      const item = await readItem(key(recordId));
      return item && items.fromItem(item);
    },

    /** Records by id, one batch read per 100 ids, in no particular order. */
    async readMany(ids: readonly I[]): Promise<R[]> {
      return (await readItems([...new Set(ids)].map(key))).map(items.fromItem);
    },

    /** Every record: the collection read consistently, else the first list walked to its end. */
    async readAll(): Promise<R[]> {
      const records: R[] = [];
      for await (const page of lists.pages()) records.push(...page);
      return records;
    },

    /** Every record, a page at a time (as readAll reads them): for walks too large to hold at once. */
    pages: lists.pages,
    list: lists.list,

    /** Every record's summary (the collection's `summary` fields and its id), read consistently: what a list sorts before it reads its page's records (`readMany`). */
    readSummaries: summaries.readSummaries,
    /** The steps that write the summaries of records stored before the entity kept them (a migration). */
    summarize: summaries.writing,

    lockKey: locks.lockKey,
    lockOwner: locks.lockOwner,
    ownerByLock: locks.ownerByLock,
    relock: locks.relock,
    patchLock: locks.patchLock,

    /** The record holding a unique value (two reads: the lock, then the record). */
    async findByLock(lockName: K, value: string): Promise<R | undefined> {
      const owner = await locks.ownerByLock(lockName, value);
      return owner === undefined ? undefined : this.read(owner);
    },

    /** The id counter and record count, when the entity has one. */
    counter,

    /** The next id (counter.firstId the first time). */
    allocateId(): Promise<number> {
      if (!counter) throw new Error(`${name} has no counter`);
      return allocateId(counter);
    },

    /**
     * Steps that write new records, take their locks, count them and record their creation by the
     * write `stamp` stamps (one transaction holds 100 steps; a batch counts its records on one shard
     * of the count).
     */
    create(stamp: WriteStamp, ...records: R[]): WriteStep[] {
      return [
        ...records.flatMap((record) => [
          put(items.fitting(record), ABSENT, () => new Conflict(`${name} ${id(record)} already exists`)),
          ...summaries.writing(record),
          ...locks.taking(record),
          ...recorded(stamp, undefined, record),
        ]),
        ...(counter && records[0] ? [countChange(counter, Number(id(records[0])), records.length)] : []),
      ];
    },

    /** A step that writes a record as it is, whatever was there (tooling, bootstrap keys). */
    overwrite(record: R): WriteStep {
      return put(items.toItem(record));
    },

    /**
     * Steps that replace `current` with `next` at the version read, which must be the one the caller
     * expects (else its 412), moving each lock whose value changed and refreshing those whose carried
     * fields did. The record is updated in place, in what changed: what its item holds beyond that
     * stays as it is. The change is recorded by the write `stamp` stamps.
     */
    replace(stamp: WriteStamp, current: R & Versioned, next: R & Versioned, expectedVersion: number | undefined): WriteStep[] {
      if (expectedVersion !== undefined && expectedVersion !== current.version) throw new VersionMismatch(name, expectedVersion);
      const fields = Object.entries(items.changedAttributes(current, next)).filter(([field]) => !unreplaced.has(field));
      return [
        patchStep(key(id(current)), { set: Object.fromEntries(fields), when: { version: current.version }, whenEmpty }, versionFailure(name, expectedVersion)),
        ...summaries.rewriting(current, next),
        ...recorded(stamp, current, next),
        ...locks.moving(current, next),
      ];
    },

    /**
     * Whether `next` holds what `current` does (its version and dates aside): a write that changes
     * nothing writes nothing, keeps the version and records no change. A version expected that is not
     * the record's is still the caller's 412.
     */
    unchanged(current: R & Versioned, next: R & Versioned, expectedVersion: number | undefined): boolean {
      if (expectedVersion !== undefined && expectedVersion !== current.version) throw new VersionMismatch(name, expectedVersion);
      const content = (record: R) => Object.fromEntries(Object.entries(record as object).filter(([field, value]) => !UNCOMPARED.has(field) && !unreplaced.has(field) && value !== undefined));
      return isDeepStrictEqual(content(current), content(next));
    },

    /** Steps that delete `current` at the expected version, free its locks, uncount it and record its deletion by the write `stamp` stamps. */
    remove(stamp: WriteStamp, current: R & Versioned, expectedVersion: number | undefined): WriteStep[] {
      return [
        remove(key(id(current)), atVersion(expectedVersion, current.version, pendingLog), versionFailure(name, expectedVersion)),
        ...summaries.removing(current),
        ...locks.freeing(current),
        ...(counter ? [countChange(counter, Number(id(current)), -1)] : []),
        ...recorded(stamp, current, undefined),
      ];
    },

    /**
     * The steps that record a change a write makes its own way (a `patch`), given the record before
     * and after it: for the writes that are neither a create, a replace nor a remove.
     */
    recordChange: recorded,

    /**
     * A step that writes the record's index attributes as the declaration makes them now (a list
     * declared after the record was stored), and `also` of its fields, at the version read: a
     * record written since was written with them.
     */
    reindex: (record: R & Versioned, also: Partial<R> = {}): WriteStep =>
      patchStep(key(id(record)), { set: { ...items.indexAttributes(record), ...also }, when: { version: record.version }, whenEmpty }, raced),

    /** A step that changes some attributes of an existing record in place. */
    patch: (recordId: I, patch: Patch<R>, onConditionFailed?: OnConditionFailed): WriteStep => patchStep(key(recordId), patch, onConditionFailed),
  };
}
