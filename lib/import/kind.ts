/**
 * A kind of record a store's import brings (docs/moving-from-thelia.md), declared once in its resource's folder
 * (`lib/<resource>/import.ts`): the Thelia table its records come from, how a run reads and maps
 * its rows, how its records are written and how the table's records of that kind are walked and
 * deleted when their rows are gone. The run (run.ts), the destination (destination.ts) and the
 * report know kinds only through this declaration, so a new kind touches only its own folder.
 */
import type { WriteStamp } from '../db/stamp.js';
import type { Counter } from '../db/counters.js';
import type { Item } from '../db/items.js';
import type { Key } from '../db/keys.js';
import type { WriteStep } from '../db/transactions.js';
import type { Write } from '../db/write-plan.js';
import type { Mapped, Problem } from './mapping.js';
import type { TheliaSource } from './source.js';

/**
 * What became of a record: written; already there with the same content; already there, changed
 * through the API since it was imported (same record: same creation date), left as it is; or not
 * written, with why.
 */
export type Outcome =
  | { status: 'imported' }
  | { status: 'updated' }
  | { status: 'unchanged' }
  /** With `sourceUpdatedAt`: changed in the source since the import too, which a run without --update does not apply. */
  | { status: 'kept'; sourceUpdatedAt?: string; tableUpdatedAt?: string }
  /** Changed in the source and through the API since the import: left as it is, both dates named. */
  | { status: 'conflict'; sourceUpdatedAt: string; tableUpdatedAt: string }
  | { status: 'skipped'; problems: Problem[] }
  /** The import's record, whose source row is gone, left in the table: why. */
  | { status: 'missing'; reason: string }
  /** The import's record, whose source row is gone, deleted (`--delete-missing`). */
  | { status: 'deleted' };

/** A record as the import keeps its books: its id, dates and version, and whether the import wrote that version. */
export type Stored = { id: number; createdAt: string; updatedAt: string; version: number; importedVersion?: number | undefined; sourceUpdatedAt?: string | undefined };

/** What a kind's mapping may ask of the run. */
export interface ImportContext {
  /**
   * Why record `id` of `kind` (a kind imported before this one, or this one's earlier rows) cannot
   * be referred to: skipped, or not in the source; undefined when it can.
   */
  problemOf(kind: string, id: number): string | undefined;
}

/** A run's reading and mapping of a kind: the source's rows in batches by id, and the record (or the problems) each becomes. */
export interface KindRun<Row extends { id: number }, R extends Stored> {
  batches: AsyncGenerator<Row[]>;
  map(row: Row): Mapped<R>;
}

/** How a kind's records are written, many to a transaction, through its entity's own steps. */
export interface Writer<R extends Stored> {
  readMany(ids: readonly number[]): Promise<R[]>;
  /** What the table must say of the records before they are written (one read for a batch), when anything. */
  prepare?(records: readonly R[]): Promise<R[]>;
  /** The steps that write new records, as the API's creates would, by the write `stamp` stamps. */
  steps(stamp: WriteStamp, records: readonly R[]): readonly WriteStep[] | Promise<readonly WriteStep[]>;
  /** The steps that put `next` in place of a stored record, at its version (`--update`, or a `replaceable` one). */
  updateSteps(stamp: WriteStamp, stored: R, next: R): readonly WriteStep[] | Promise<readonly WriteStep[]>;
  /** Whether the stored record says what the source's does. */
  same(stored: R, imported: R): boolean;
  /** A stored record the source's (`imported`) takes the place of though the import did not write it (a seeded rule nobody changed or used). */
  replaceable?(stored: R, imported: R): Promise<boolean>;
  /** The value that must be unique among records (email, ref), its lock and its Thelia column. */
  unique?: { column: string; valueOf(record: R): string; lockKey(value: string): Key; ownerOf(lock: Item): number | undefined };
  /** The Conflict fields of the references a write may find gone (a product's rule), and the Thelia column each names. */
  references?: Readonly<Record<string, string>>;
  /** Records to a transaction: 100 steps at most, counters included. */
  perTransaction: number;
}

export interface ImportKind<Row extends { id: number } = { id: number }, R extends Stored = Stored> {
  /** What a record is called in the report and in problems ('tax rule'), and in the plural. */
  kind: string;
  plural: string;
  /** The Thelia table whose rows are the records: counted for the progress, its highest id reserved. */
  table: string;
  /** The kinds its records refer to: imported before it, their missing records walked after its own. */
  after: readonly string[];
  /** Why an id the source does not have (or has not reached) cannot be referred to. */
  absent: string;
  /** The id counter a run moves past the source's highest id, so that the API's creates never take one of the source's. */
  counter: Counter | undefined;
  /** Other counters its records take ids of, each moved past its own table's highest id (a product's default sale element's). */
  alsoCounts?: readonly { table: string; counter: Counter }[];
  /** This run's reading and mapping: what it reads first (the default currency) or remembers between rows (the default rule) is its own. */
  begin(source: TheliaSource, size: number, context: ImportContext): Promise<KindRun<Row, R>>;
  writer: Writer<R>;
  /** The table's records, a page at a time: those the import wrote and the source lacks are missing. */
  pages(): AsyncGenerator<R[]>;
  /** The domain's own delete, at the version given. */
  remove(id: number, version: number): Write<void>;
  /** Why a record cannot be deleted yet, if it cannot (a rule some products use, less `freed`: those this run deleted). */
  inUse?(record: R, freed: number): Promise<string | undefined>;
  /** The record of another kind its deletion frees (a product, its rule): a dry run counts them, as it deletes nothing. */
  frees?(record: R): { kind: string; id: number } | undefined;
  /**
   * The record of another kind it is deleted with (a sale element, its product): when that one's
   * source row is gone too, its outcome is the record's, which is not walked on its own.
   */
  ownedBy?(record: R): { kind: string; id: number };
}

/** A kind as its folder declares it; its plural is `${kind}s` unless said. */
export function defineImportKind<Row extends { id: number }, R extends Stored>(declaration: Omit<ImportKind<Row, R>, 'plural' | 'after'> & { plural?: string; after?: readonly string[] }): ImportKind {
  return { ...declaration, plural: declaration.plural ?? `${declaration.kind}s`, after: declaration.after ?? [] };
}

/**
 * The kinds in the order a run brings them: each after the kinds it names in `after`, otherwise in
 * the order given (the registry's), the kinds that refer to none and none refers to (customers) last,
 * so that the kinds whose mappings ask of each other (the catalogue) run together. A kind waiting
 * for one that is not there, or a circle, is an error naming it.
 */
export function inImportOrder(kinds: readonly ImportKind[]): ImportKind[] {
  const referred = new Set(kinds.flatMap((kind) => kind.after));
  const isolated = (kind: ImportKind) => kind.after.length === 0 && !referred.has(kind.kind);
  const waiting = [...kinds.filter((kind) => !isolated(kind)), ...kinds.filter(isolated)];
  const ordered: ImportKind[] = [];
  const done = new Set<string>();
  const nextReady = () => waiting.findIndex((kind) => kind.after.every((name) => done.has(name)));
  for (let next = nextReady(); next >= 0; next = nextReady()) {
    const [kind] = waiting.splice(next, 1);
    if (kind) {
      ordered.push(kind);
      done.add(kind.kind);
    }
  }
  if (waiting.length) throw new Error(`import kinds whose kinds before never come: ${waiting.map((kind) => `${kind.kind} (after ${kind.after.join(', ')})`).join('; ')}`);
  return ordered;
}
