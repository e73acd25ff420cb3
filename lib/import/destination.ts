/**
 * Where imported records go: the table, through each kind's own steps (its `Writer`), so that
 * uniqueness locks, list totals, id counters and what records count of each other end as if the API
 * had created the records. Records are written many to a transaction; when one of them cannot be
 * (its email is taken, its id is), the transaction is cancelled and its records are written one by
 * one to tell which and why. A record already in the table under its id is unchanged when its
 * content is the source's, kept when it was changed since, and the source's record is skipped when
 * the id is another record's; only `--update` overwrites one, and only one nobody changed since the
 * import wrote it. Records the import created whose source rows are gone are found by walking the
 * table (`missing`), and deleted only with `--delete-missing`. A dry run reads all the same and
 * writes nothing. What a kind is, is declared in its resource's folder (kind.ts).
 */
import { present } from '../present.js';
import { reserveIdsThrough, type Counter } from '../db/counters.js';
import { Conflict, NotFound, Refused, TooLarge, Unavailable, VersionMismatch } from '../db/errors.js';
import { LIMITS } from '../limits.js';
import { readItem, readItems } from '../db/items.js';
import { keyText, type Key } from '../db/keys.js';
import { ABSENT, itemKeyOf, type WriteStep } from '../db/transactions.js';
import { commit, stepsWrite } from '../db/write-plan.js';
import { stampWrite, type WriteStamp } from '../db/stamp.js';
import { equalJitter, retrying } from '../db/retry.js';
import type { ImportKind, Outcome, Stored, Writer } from './kind.js';

const IMPORTED: Outcome = { status: 'imported' };
const UNCHANGED: Outcome = { status: 'unchanged' };
const KEPT: Outcome = { status: 'kept' };
const UPDATED: Outcome = { status: 'updated' };
const DELETED: Outcome = { status: 'deleted' };
const missing = (reason: string): Outcome => ({ status: 'missing', reason });
const skipped = (field: string, message: string): Outcome => ({ status: 'skipped', problems: [{ field, message }] });

/** JSON with sorted keys: the same content whatever order its maps were stored in. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * What a record says, without what any write changes by itself: its version, its dates, and the
 * fields a kind names as the table's bookkeeping (`alsoIgnored`).
 */
export const contentOf = (record: object, alsoIgnored: readonly string[] = []): string => {
  const ignored = new Set(['version', 'importedVersion', 'sourceUpdatedAt', 'createdAt', 'updatedAt', ...alsoIgnored]);
  return canonical(Object.fromEntries(Object.entries(record).filter(([field]) => !ignored.has(field))));
};

/**
 * Whether a record was written by the import and nobody changed it since: its version is still the
 * import's. A record imported before the import marked its records counts when it is still at
 * version 1 and was created when the source's row was (the API dates a create with its own clock,
 * to the millisecond; Thelia's dates are whole seconds).
 */
function untouched(stored: Stored, source?: Stored): boolean {
  if (stored.importedVersion !== undefined) return stored.importedVersion === stored.version;
  return source !== undefined && stored.version === 1 && stored.createdAt === source.createdAt;
}
/**
 * Whether the source's row was updated after the import last wrote the record. For a record imported
 * before the import kept the source's date, that date is the record's own while it is at version 1,
 * and unknown after (then: no).
 */
function sourceChanged(stored: Stored, imported: Stored): boolean {
  const importedFrom = stored.sourceUpdatedAt ?? (stored.importedVersion === undefined && stored.version === 1 ? stored.updatedAt : undefined);
  return importedFrom !== undefined && imported.updatedAt > importedFrom;
}
/** A record as the import writes it: the version given, marked as the import's, with the source's date. */
const asImported = <R extends Stored>(record: R, version: number): R => ({ ...record, version, importedVersion: version, sourceUpdatedAt: record.updatedAt });

/**
 * The steps that count records into what they refer to (one record, or several: a sale element's
 * attribute values), a batch's records on the shard of the first of them per referred id (only the
 * sum is read): fewer items shared with the API's writes.
 */
export function countedInto<R extends { id: number }>(
  records: readonly R[],
  referred: (record: R) => number | undefined | readonly number[],
  step: (referredId: number, firstId: number, count: number) => WriteStep,
): WriteStep[] {
  const per = new Map<number, { firstId: number; count: number }>();
  for (const record of records) {
    const ids = referred(record);
    for (const id of ids === undefined ? [] : typeof ids === 'number' ? [ids] : ids) per.set(id, { firstId: per.get(id)?.firstId ?? record.id, count: (per.get(id)?.count ?? 0) + 1 });
  }
  return [...per].map(([id, { firstId, count }]) => step(id, firstId, count));
}

/** DynamoDB's limits: an item holds 400 KB (lib/limits.ts), a transaction 4 MB (kept well under, as sizes are estimated). */
const ITEM_BYTES = LIMITS.dynamodb.itemBytes;
const TRANSACTION_BYTES = 3 * 1024 * 1024;
/** A record's size in the table, estimated from its JSON plus its keys, index keys and lock. */
const sizeOf = (record: object): number => Buffer.byteLength(JSON.stringify(record)) + 512;
/** What a record adds to its transaction: itself, and its change, which holds its fields once more. */
const transactionShareOf = (record: object): number => 2 * sizeOf(record);

/**
 * Runs `attempt`, waiting and trying again while DynamoDB is throttled or out of reach (a store's
 * import is worth waiting for), a bounded number of times.
 */
const patiently = <T>(attempt: () => Promise<T>): Promise<T> => retrying(attempt, { attempts: 8, retryable: (error) => error instanceof Unavailable, waitMs: equalJitter(100, 5_000) });

/**
 * Commits the steps `makeSteps` gives, patiently; a concurrent transaction in the way makes new steps
 * (the executor plans again). A write whose answer was lost may have been applied: trying it again
 * then fails its conditions, and the record is found unchanged.
 */
async function persist(makeSteps: (stamp: WriteStamp) => readonly WriteStep[] | Promise<readonly WriteStep[]>): Promise<void> {
  await patiently(() => stepsWrite(makeSteps).commit());
}

/** Records in transactions of at most `count` records and about TRANSACTION_BYTES. */
function* transactions<R extends object>(records: readonly R[], count: number): Generator<R[]> {
  let chunk: R[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = transactionShareOf(record);
    if (chunk.length && (chunk.length === count || bytes + size > TRANSACTION_BYTES)) {
      yield chunk;
      [chunk, bytes] = [[], 0];
    }
    chunk.push(record);
    bytes += size;
  }
  if (chunk.length) yield chunk;
}

export class Destination {
  /** In a dry run, the unique values the records would have taken so far, and by whom. */
  private readonly claimed = new Map<string, number>();
  /** In a dry run, per record another kind's deletions free (a rule, by its products), how many the run would have deleted. */
  private readonly freed = new Map<string, number>();

  /**
   * `update`: apply what changed in the source to records nobody changed since they were imported.
   * `deleteMissing`: delete the records the import created whose source rows are gone, when nobody
   * changed them since.
   */
  constructor(
    readonly dryRun: boolean,
    readonly update = false,
    readonly deleteMissing = false,
  ) {}

  /** Ids created later through the API come after `lastId`. */
  async reserveIds(counter: Counter | undefined, lastId: number): Promise<void> {
    if (this.dryRun) return;
    if (counter) await reserveIdsThrough(counter, lastId);
  }

  /**
   * The verdict on a record whose id is in the table, other than an update: unchanged; kept (changed
   * through the API since, or, without --update, in the source, with both dates then); a conflict
   * (changed on both sides, with --update); or another record's id.
   */
  private alreadyThere(kind: ImportKind, stored: Stored, imported: Stored, same: boolean): Outcome {
    if (same) return UNCHANGED;
    if (stored.createdAt === imported.createdAt) {
      if (!sourceChanged(stored, imported)) return KEPT;
      const dates = { sourceUpdatedAt: imported.updatedAt, tableUpdatedAt: stored.updatedAt };
      return this.update ? { status: 'conflict', ...dates } : { status: 'kept', ...dates };
    }
    return skipped(`${kind.table}.id`, `id ${imported.id} is another ${kind.kind}'s in the table (created ${stored.createdAt}), which is left as it is`);
  }

  /** A batch of a kind's records, each compared with the table's and written, updated, replaced or left as it is. */
  async write(kind: ImportKind, records: readonly Stored[]): Promise<Map<number, Outcome>> {
    const { writer } = kind;
    const outcomes = new Map<number, Outcome>();
    const stored = new Map((await writer.readMany(records.map((r) => r.id))).map((record) => [record.id, record]));
    const fresh: Stored[] = [];
    for (const source of records) {
      const record = asImported(source, source.version);
      const existing = stored.get(record.id);
      const same = existing !== undefined && writer.same(existing, record);
      if (existing && !same && this.update && existing.createdAt === record.createdAt && untouched(existing, record)) {
        outcomes.set(record.id, await this.replace(kind, existing, record, UPDATED));
      } else if (existing && !same && (await writer.replaceable?.(existing, record))) outcomes.set(record.id, await this.replace(kind, existing, record, IMPORTED));
      else if (existing) outcomes.set(record.id, this.alreadyThere(kind, existing, record, same));
      else if (sizeOf(record) > ITEM_BYTES) outcomes.set(record.id, skipped(kind.table, `takes about ${Math.round(sizeOf(record) / 1024)} KB, more than the 400 KB a DynamoDB item holds`));
      else fresh.push(record);
    }
    // A transaction cannot hold two locks of one value: a value met again waits for a single write.
    const seen = new Set<string>();
    const together: Stored[] = [];
    const alone: Stored[] = [];
    for (const record of writer.prepare && fresh.length ? await writer.prepare(fresh) : fresh) {
      const lock = writer.unique?.lockKey(writer.unique.valueOf(record)).pk;
      (lock !== undefined && seen.has(lock) ? alone : together).push(record);
      if (lock !== undefined) seen.add(lock);
    }
    for (const chunk of transactions(together, writer.perTransaction)) {
      if (this.dryRun) for (const [id, outcome] of await this.wouldWrite(kind, chunk)) outcomes.set(id, outcome);
      else if (!(await this.writeTogether(writer, chunk))) for (const record of chunk) outcomes.set(record.id, await this.writeAlone(kind, record));
      else for (const record of chunk) outcomes.set(record.id, IMPORTED);
    }
    for (const record of alone)
      outcomes.set(record.id, this.dryRun ? present((await this.wouldWrite(kind, [record])).get(record.id), `what ${kind.kind} ${record.id} would come to`) : await this.writeAlone(kind, record));
    return outcomes;
  }

  /**
   * The records of a kind the import created whose rows the source no longer has (`sourceIds` holds
   * every id it has, skipped rows included): deleted with `deleteMissing` when nobody changed them
   * since, else left as they are and listed. Records created through the API are not the source's;
   * those whose owner is gone from the source too (`goesWithOwner`) are its owner's to delete.
   */
  async missing(kind: ImportKind, sourceIds: ReadonlySet<number>, goesWithOwner: (record: Stored) => boolean = () => false): Promise<Map<number, Outcome>> {
    const outcomes = new Map<number, Outcome>();
    for await (const page of kind.pages()) {
      for (const record of page) {
        if (record.importedVersion === undefined || sourceIds.has(record.id) || goesWithOwner(record)) continue;
        outcomes.set(record.id, await this.removeMissing(kind, record));
      }
    }
    // By id, whatever order the table's walk met them in (a sharded list's shards one after another).
    return new Map([...outcomes].sort(([a], [b]) => a - b));
  }

  private async removeMissing(kind: ImportKind, record: Stored): Promise<Outcome> {
    const kept = (why: string) => missing(`not in Thelia any more, and ${why}: left as it is`);
    const changedSince = 'changed through the API since the import';
    if (!untouched(record)) return kept(changedSince);
    if (!this.deleteMissing) return missing('not in Thelia any more: --delete-missing deletes it');
    const inUse = await kind.inUse?.(record, this.dryRun ? (this.freed.get(`${kind.kind} ${record.id}`) ?? 0) : 0);
    if (this.dryRun) {
      if (inUse) return kept(inUse);
      const freed = kind.frees?.(record);
      if (freed) this.freed.set(`${freed.kind} ${freed.id}`, (this.freed.get(`${freed.kind} ${freed.id}`) ?? 0) + 1);
      return DELETED;
    }
    try {
      await patiently(() => commit(kind.remove(record.id, record.version)));
      return DELETED;
    } catch (error) {
      // Deleted by an attempt whose answer was lost (or by someone since it was read).
      if (error instanceof NotFound) return DELETED;
      if (error instanceof VersionMismatch) return kept(changedSince);
      if (error instanceof Conflict) return kept(error.message);
      throw error;
    }
  }

  /**
   * A stored record replaced, at its version, by the source's content, as the import's: an untouched
   * record changed in the source (`--update`: `done` is updated), or one the kind says the import
   * takes the place of (`done` is imported). A change by `import`.
   */
  private async replace(kind: ImportKind, stored: Stored, record: Stored, done: Outcome): Promise<Outcome> {
    const { writer } = kind;
    const next = asImported(record, stored.version + 1);
    if (this.dryRun) return done;
    const [prepared = next] = writer.prepare ? await writer.prepare([next]) : [];
    try {
      await persist((stamp) => writer.updateSteps(stamp, stored, prepared));
      return done;
    } catch (error) {
      if (error instanceof Refused || error instanceof TooLarge) return skipped(kind.table, error.message);
      if (!(error instanceof Conflict) && !(error instanceof VersionMismatch)) throw error;
      // Applied by an attempt whose answer was lost, or changed by someone meanwhile.
      const [now] = await writer.readMany([stored.id]);
      if (now && writer.same(now, prepared)) return UNCHANGED;
      if (error instanceof Conflict && error.field !== undefined) return skipped(writer.references?.[error.field] ?? writer.unique?.column ?? kind.table, error.message);
      return now ? this.alreadyThere(kind, now, prepared, false) : skipped(`${kind.table}.id`, error.message);
    }
  }

  /** Whether the records were written together; false when one of them could not be. */
  private async writeTogether(writer: Writer<Stored>, records: readonly Stored[]): Promise<boolean> {
    try {
      await persist((stamp) => writer.steps(stamp, records));
      return true;
    } catch (error) {
      if (error instanceof Conflict || error instanceof Refused || error instanceof TooLarge) return false;
      throw error;
    }
  }

  private async writeAlone(kind: ImportKind, record: Stored): Promise<Outcome> {
    try {
      await persist((stamp) => kind.writer.steps(stamp, [record]));
      return IMPORTED;
    } catch (error) {
      if (error instanceof Refused || error instanceof TooLarge) return skipped(kind.table, error.message);
      if (!(error instanceof Conflict)) throw error;
      return this.refused(kind, record, error);
    }
  }

  /** What a record's write refused by one of its conditions comes to (the run's and the dry run's verdict alike). */
  private async refused(kind: ImportKind, record: Stored, error: Conflict): Promise<Outcome> {
    const { writer } = kind;
    const column = error.field === undefined ? undefined : writer.references?.[error.field];
    if (column) return skipped(column, error.message);
    if (error.field !== undefined && writer.unique) {
      const lock = await readItem(writer.unique.lockKey(writer.unique.valueOf(record)));
      return this.takenBy(kind, record, lock && writer.unique.ownerOf(lock));
    }
    // The id was taken since it was read, or its history is kept from a record deleted since it was made.
    const [existing] = await writer.readMany([record.id]);
    return existing ? this.alreadyThere(kind, existing, record, writer.same(existing, record)) : skipped(`${kind.table}.id`, error.message);
  }

  private takenBy(kind: ImportKind, record: Stored, owner: number | undefined): Outcome {
    const holder = owner === undefined ? `another ${kind.kind}` : `${kind.kind} ${owner}`;
    const unique = present(kind.writer.unique, `the unique value of a ${kind.kind}`);
    return skipped(unique.column, `${holder} already has ${JSON.stringify(unique.valueOf(record))} (compared case-insensitively)`);
  }

  /**
   * A dry run's verdict, from the very steps the run would write: a step that may only create its
   * item (a lock, a change of the record's history) whose item is there refuses the record as the
   * run's transaction would; and a unique value is free only once in this run.
   */
  private async wouldWrite(kind: ImportKind, records: readonly Stored[]): Promise<Map<number, Outcome>> {
    const { writer } = kind;
    const stamp = stampWrite();
    const planned = await Promise.all(records.map(async (record) => ({ record, creates: (await writer.steps(stamp, [record])).filter(createsOnly) })));
    const found = new Map((await readItems(planned.flatMap(({ creates }) => creates.map(itemKeyOf)))).map((item) => [keyText(item as Key), item]));
    const outcomes = new Map<number, Outcome>();
    for (const { record, creates } of planned) {
      const refusing = creates.find((step) => found.has(keyText(itemKeyOf(step))));
      if (refusing) {
        const error = refusing.onConditionFailed?.(found.get(keyText(itemKeyOf(refusing))));
        outcomes.set(record.id, error instanceof Conflict ? await this.refused(kind, record, error) : skipped(kind.table, error?.message ?? 'refused'));
        continue;
      }
      const unique = writer.unique;
      const key = unique?.lockKey(unique.valueOf(record)).pk;
      const claimedBy = key === undefined ? undefined : this.claimed.get(key);
      if (unique && claimedBy !== undefined) outcomes.set(record.id, this.takenBy(kind, record, claimedBy));
      else {
        if (key !== undefined) this.claimed.set(key, record.id);
        outcomes.set(record.id, IMPORTED);
      }
    }
    return outcomes;
  }
}

/** A step that may only create its item (attribute_not_exists): its item being there refuses the write. */
const createsOnly = (step: WriteStep): boolean => step.item.Put?.ConditionExpression === ABSENT.expression;
