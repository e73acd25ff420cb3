/**
 * What a resource declares of how its records live in the single table (ElectroDB's schema): its
 * key, its lists (each order an index and a sort key), its uniqueness locks, its counter, its
 * collection and its audit. lib/db/entity.ts interprets it, one concern a module beside this one.
 */
import * as v from 'valibot';
import type { AuditDeclaration } from './changes.js';
import type { Item } from './items.js';
import type { Key } from './keys.js';
import type { IndexName } from './table.js';

export type Id = number | string;

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
  /**
   * Into how many index partitions the list's records are spread, each by its id (`<partition>#S<n>`):
   * a list of every record of a kind written at a store's rate, so that no one index partition takes
   * every write of the kind (DynamoDB holds one partition to 1 000 writes a second). Its pages merge
   * the shards in order (entity-lists.ts).
   */
  shards?: number;
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

/**
 * Records kept in one partition of the table itself (a small set read whole, consistently). With a
 * `summary`, each record also has a small item beside it holding only what sorting the set needs
 * (ids and titles, say), written in the same transactions: a list sorts the summaries and then
 * reads only its page's records, so its cost is bounded by the page, not by the records' size.
 */
export interface CollectionDeclaration<R> {
  partition: string;
  sortPrefix: string;
  summary?: { sortPrefix: string; fields: (record: R) => Item };
}

export interface EntityDeclaration<S extends v.GenericSchema<unknown, Item>, I extends Id, L extends string, K extends string> {
  /** What a record is called in errors: "customer", "tax rule". */
  name: string;
  /** The record's attributes: items are parsed with it, which also drops the key attributes. */
  schema: S;
  id: (record: v.InferOutput<S>) => I;
  key: (id: I) => Key;
  collection?: CollectionDeclaration<v.InferOutput<S>>;
  lists?: Record<L, ListDeclaration<v.InferOutput<S>>>;
  locks?: Record<K, LockDeclaration<v.InferOutput<S>>>;
  /** The id counter and the record count (shown by the counted lists); `firstId` defaults to 1; at most `max` records. */
  counter?: { name: string; firstId?: number; max?: number };
  /**
   * Every record, a page at a time, for records that neither a collection nor one list holds all of
   * (each list a partition of its owner: a product's sale elements): what an import's walk of its
   * missing records and a rebuild of the search index read.
   */
  walk?: () => AsyncGenerator<v.InferOutput<S>[]>;
  /**
   * Records whose creates, replaces and removes record a change (changes.ts) in the same
   * transaction: the resource's name in changes, the fields its rows show, and (for records that
   * carry none) the record's version.
   */
  audit?: AuditDeclaration<v.InferOutput<S>> & { version?: (record: v.InferOutput<S>) => number };
  /**
   * Fields stored in another form than the record's: each maps the record's value to the item's (a
   * stock kept as a DynamoDB number, which a single UpdateItem can add to); the schema reads both.
   */
  storedAs?: StoredForms<v.InferOutput<S>>;
  /**
   * A list attribute that single-item writes outside transactions append to (stock takes not yet
   * recorded as changes: lib/products/stock-takes.ts). A replace or a remove requires it empty, since
   * the versions its entries hold are recorded after them, and never writes it.
   */
  pendingLog?: string;
}

/** How some fields of a record are stored: the item's value for the record's. */
export type StoredForms<R> = { [F in keyof R]?: (value: R[F]) => unknown };

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
