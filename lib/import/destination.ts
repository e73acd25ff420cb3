/**
 * Where imported records go: the table, through the entities' own steps, so that uniqueness locks,
 * list totals, id counters and each rule's product count end as if the API had created the records.
 * Records are written many to a transaction; when one of them cannot be (its email is taken, its id
 * is), the transaction is cancelled and its records are written one by one to tell which and why.
 * A record already in the table under its id is unchanged when its content is the source's, kept
 * when it was changed since, and the source's record is skipped when the id is another record's;
 * only `--update` overwrites one, and only one nobody changed since the import wrote it. Records the
 * import created whose source rows are gone are found by walking the table (`missing`), and deleted
 * only with `--delete-missing`. A dry run reads all the same and writes nothing. Each kind is declared
 * once (`KINDS`): how it is counted, walked and deleted, and, for the kinds written many at a time
 * (`Writer`), how; tax rules are written one by one, with the default's pointer (`taxRule`).
 */
import { present } from '../present.js';
import { categories, type Category } from '../categories/entity.js';
import { deleteCategory } from '../categories/operations.js';
import { countReferenceStep, referencesCreateSteps, referencesTo } from '../categories/references.js';
import { customers, type Customer } from '../customers/entity.js';
import { deleteCustomer } from '../customers/operations.js';
import { isBcrypt } from '../customers/password.js';
import { reserveIdsThrough, type Counter } from '../db/counters.js';
import { Conflict, NotFound, Refused, TooLarge, Unavailable, VersionMismatch } from '../db/errors.js';
import { LIMITS } from '../limits.js';
import { readItem, readItems, type Item } from '../db/items.js';
import type { Key } from '../db/keys.js';
import { ABSENT, retryOnConflict, writeAtomically, type WriteStep } from '../db/transactions.js';
import { commit, type Write } from '../db/write-plan.js';
import { seededTaxRules } from '../local/setup.js';
import { products, type Product } from '../products/entity.js';
import { categoryMoveSteps, deleteProduct } from '../products/operations.js';
import { readShards, sumOf } from '../db/sharded-count.js';
import { taxRules, type TaxRule } from '../tax-rules/entity.js';
import { countProductStep, deleteTaxRule, productsUsingRule, wholeRuleSteps } from '../tax-rules/operations.js';
import type { Problem } from './mapping.js';
import type { Kind as RecordKind } from './kinds.js';
import { equalJitter, retrying } from '../db/retry.js';

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
 * What a record says, without what any write changes by itself: its version, its dates, its tallies
 * (whether a product is counted among its category's references is the table's bookkeeping).
 */
const contentOf = (record: object, alsoIgnored: readonly string[] = []): string => {
  const ignored = new Set(['version', 'importedVersion', 'sourceUpdatedAt', 'createdAt', 'updatedAt', 'categoryCounted', ...alsoIgnored]);
  return canonical(Object.fromEntries(Object.entries(record).filter(([field]) => !ignored.has(field))));
};

type Stored = { id: number; createdAt: string; updatedAt: string; version: number; importedVersion?: number | undefined; sourceUpdatedAt?: string | undefined };

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
 * A kind's records in the table, as the run keeps their books: the id counter it moves past the
 * source's ids, and how they are walked and deleted when their source rows are gone (`--delete-missing`).
 */
interface Kind {
  /** What a record is called, and the Thelia table it comes from. */
  what: string;
  table: string;
  counter: Counter | undefined;
  pages(): AsyncGenerator<Stored[]>;
  /** The domain's own delete, at the version given. */
  remove(id: number, version: number): Write<void>;
  /** Why a record cannot be deleted yet, if it cannot: a rule some products use, less those `freed` by this run's deletions. */
  inUse?(record: Stored, freed: number): Promise<string | undefined>;
  /** The rule a record uses, which its deletion frees (a dry run counts them, as it deletes nothing). */
  rule?(record: Stored & { taxRuleId?: number }): number | undefined;
}

/** A kind the run writes many records of at once, and how (tax rules are written one by one: `taxRule`). */
interface Writer<R extends Stored> extends Kind {
  readMany(ids: readonly number[]): Promise<R[]>;
  /** What the table must say of the records before they are written (one read for a batch), when anything. */
  prepare?(records: readonly R[]): Promise<R[]>;
  steps(records: readonly R[]): WriteStep[];
  /** The steps that replace an untouched record with the source's newer content (`--update`). */
  updateSteps(stored: R, next: R): WriteStep[];
  same(stored: R, imported: R): boolean;
  /** The value that must be unique among records (email, ref), its lock and its Thelia column; categories have none. */
  unique?: { column: string; valueOf(record: R): string; lockKey(value: string): Key; ownerOf(lock: Item): number | undefined };
  /** Records to a transaction: 100 steps at most, counters included. */
  perTransaction: number;
}

const customerKind: Writer<Customer> = {
  what: 'customer',
  table: 'customer',
  counter: customers.counter,
  pages: () => customers.pages(),
  remove: deleteCustomer,
  readMany: (ids) => customers.readMany(ids),
  steps: (records) => customers.create(...records),
  updateSteps: (stored, next) => customers.replace(stored, next, stored.version),
  same(stored, imported) {
    // A bcrypt hash is upgraded at the customer's first successful check: that is no change of content.
    const ignored = isBcrypt(stored.passwordHash) ? [] : ['passwordHash'];
    return contentOf(stored, ignored) === contentOf(imported, ignored);
  },
  unique: { column: 'customer.email', valueOf: (c) => c.email, lockKey: (email) => customers.lockKey('email', email), ownerOf: (lock) => customers.lockOwner(lock) },
  // Four steps a customer (the record, its email lock, its change and the change's marker), one for the record count.
  perTransaction: 24,
};

/** The Conflict fields of a reference a record's write found gone, and the Thelia column they name. */
const GONE: Record<string, string> = { taxRule: 'product.tax_rule_id', category: 'product_category.category_id', parent: 'category.parent' };
const TAX_RULE_GONE = 'taxRule';
const categoryGone = (id: number, field: 'category' | 'parent') => () => new Conflict(`category ${id} is no longer in the table`, field);

/**
 * The steps that count records into what they refer to, a batch's records on the shard of the first
 * of them per referred id (only the sum is read): fewer items shared with the API's writes.
 */
function countedInto<R extends { id: number }>(
  records: readonly R[],
  referred: (record: R) => number | undefined,
  step: (referredId: number, firstId: number, count: number) => WriteStep,
): WriteStep[] {
  const per = new Map<number, { firstId: number; count: number }>();
  for (const record of records) {
    const id = referred(record);
    if (id !== undefined) per.set(id, { firstId: per.get(id)?.firstId ?? record.id, count: (per.get(id)?.count ?? 0) + 1 });
  }
  return [...per].map(([id, { firstId, count }]) => step(id, firstId, count));
}

const categoryKind: Writer<Category> = {
  what: 'category',
  table: 'category',
  counter: categories.counter,
  pages: () => categories.pages(),
  remove: deleteCategory,
  async inUse(category) {
    const references = sumOf(await readShards(referencesTo(category.id)));
    return references > 0 ? `${references} child categories or products refer to it` : undefined;
  },
  readMany: (ids) => categories.readMany(ids),
  steps: (records) => [
    ...categories.create(...records),
    ...records.flatMap((category) => referencesCreateSteps(category.id)),
    ...countedInto(
      records,
      (category) => category.parent || undefined,
      (parent, firstId, count) => countReferenceStep(parent, firstId, count, categoryGone(parent, 'parent')),
    ),
  ],
  updateSteps(stored, next) {
    const moves =
      stored.parent === next.parent
        ? []
        : [
            ...(stored.parent ? [countReferenceStep(stored.parent, stored.id, -1, categoryGone(stored.parent, 'parent'))] : []),
            ...(next.parent ? [countReferenceStep(next.parent, next.id, 1, categoryGone(next.parent, 'parent'))] : []),
          ];
    return [...categories.replace(stored, next, stored.version), ...moves];
  },
  same: (stored, imported) => contentOf(stored) === contentOf(imported),
  // A category's record, its change and the change's marker, its references' 16 shards, its parent's
  // count and the record count: one a transaction, since a child's count and its parent's shards may
  // not be two operations on one item of one transaction.
  perTransaction: 1,
};

const productKind: Writer<Product> = {
  what: 'product',
  table: 'product',
  counter: products.counter,
  pages: () => products.pages(),
  remove: deleteProduct,
  rule: (product) => product.taxRuleId,
  readMany: (ids) => products.readMany(ids),
  /**
   * A product is counted in its default category when the table has it; one whose category the
   * source lacks keeps the id uncounted, as products stored before categories do.
   */
  async prepare(records) {
    const found = new Set((await categories.readMany(records.flatMap((p) => (p.defaultCategory ? [p.defaultCategory] : [])))).map((c) => c.id));
    return records.map((p) => ({ ...p, categoryCounted: found.has(p.defaultCategory) }));
  },
  steps: (records) => [
    ...products.create(...records),
    ...countedInto(
      records,
      (p) => p.taxRuleId,
      (ruleId, firstId, count) => countProductStep(ruleId, firstId, count, () => new Conflict(`tax rule ${ruleId} is no longer in the table`, TAX_RULE_GONE)),
    ),
    ...countedInto(
      records,
      (p) => (p.categoryCounted ? p.defaultCategory : undefined),
      (categoryId, firstId, count) => countReferenceStep(categoryId, firstId, count, categoryGone(categoryId, 'category')),
    ),
  ],
  updateSteps(stored, next) {
    const moves =
      stored.taxRuleId === next.taxRuleId
        ? []
        : [
            countProductStep(stored.taxRuleId, stored.id, -1, () => new Conflict(`tax rule ${stored.taxRuleId} is no longer in the table`)),
            countProductStep(next.taxRuleId, next.id, 1, () => new Conflict(`tax rule ${next.taxRuleId} is no longer in the table`, TAX_RULE_GONE)),
          ];
    return [...products.replace(stored, next, stored.version), ...moves, ...categoryMoveSteps(stored, next)];
  },
  same: (stored, imported) => contentOf(stored) === contentOf(imported),
  unique: { column: 'product.ref', valueOf: (p) => p.ref, lockKey: (ref) => products.lockKey('ref', ref), ownerOf: (lock) => products.lockOwner(lock) },
  // Four steps a product (the record, its ref lock, its change and the change's marker), one for the
  // record count, one for each of the products' rules (at most 30 here).
  perTransaction: 17,
};

/** Tax rules: counted, walked and deleted as the others; written one by one (`taxRule`), with the default's pointer. */
const taxRuleKind: Kind = {
  what: 'tax rule',
  table: 'tax_rule',
  counter: taxRules.counter,
  pages: () => taxRules.pages(),
  remove: deleteTaxRule,
  async inUse(rule, freed) {
    const used = (await productsUsingRule(rule.id)) - freed;
    return used > 0 ? `used by ${used} product(s)` : undefined;
  },
};

/** Every kind the import brings, by its name in the report. */
const KINDS: Record<RecordKind, Kind> = { 'tax rule': taxRuleKind, category: categoryKind, product: productKind, customer: customerKind };

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
 * Writes the steps `makeSteps` gives, patiently; a concurrent transaction in the way makes new steps
 * (retryOnConflict). A write whose answer was lost may have been applied: trying it again then fails
 * its conditions, and the record is found unchanged.
 */
async function persist(makeSteps: () => readonly WriteStep[] | Promise<readonly WriteStep[]>): Promise<void> {
  await retryOnConflict(() => patiently(async () => writeAtomically(await makeSteps())));
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

/** A rule of the table's seed that nobody changed or used: the store's own rule of that id takes its place. */
async function untouchedSeed(stored: TaxRule): Promise<boolean> {
  const seed = seededTaxRules(stored.createdAt).find((candidate) => candidate.id === stored.id);
  return seed !== undefined && stored.version === 1 && contentOf(stored) === contentOf(seed) && (await productsUsingRule(stored.id)) === 0;
}

export class Destination {
  /** In a dry run, the unique values the records would have taken so far, and by whom. */
  private readonly claimed = new Map<string, number>();
  /** In a dry run, per rule, how many of its products the run would have deleted. */
  private readonly freedRules = new Map<number, number>();

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
  async reserveIds(what: RecordKind, lastId: number): Promise<void> {
    if (this.dryRun) return;
    const { counter } = KINDS[what];
    if (counter) await reserveIdsThrough(counter, lastId);
  }

  categories = (records: readonly Category[]) => this.write(categoryKind, records);
  customers = (records: readonly Customer[]) => this.write(customerKind, records);
  products = (records: readonly Product[]) => this.write(productKind, records);

  /** One rule, alone in its transaction (with the rules' version and the default's pointer). */
  async taxRule(rule: TaxRule): Promise<Outcome> {
    const stored = await taxRules.read(rule.id);
    const same = stored !== undefined && contentOf(stored) === contentOf(rule);
    if (stored && !same && this.update && stored.createdAt === rule.createdAt && untouched(stored, rule)) {
      if (this.dryRun) return UPDATED;
      try {
        await persist(() => wholeRuleSteps(asImported(rule, stored.version + 1), stored, true));
        return UPDATED;
      } catch (error) {
        if (!(error instanceof VersionMismatch)) throw error;
        // Applied by an attempt whose answer was lost, or changed through the API meanwhile.
        const now = await taxRules.read(rule.id);
        return now && contentOf(now) === contentOf(rule) ? UNCHANGED : this.alreadyThere(taxRuleKind.what, taxRuleKind.table, now ?? stored, rule, false);
      }
    }
    if (stored && (same || !(await untouchedSeed(stored)))) return this.alreadyThere(taxRuleKind.what, taxRuleKind.table, stored, rule, same);
    if (this.dryRun) return IMPORTED;
    try {
      // In place of a seeded rule, it is the seed's next version (its change is recorded as such).
      await persist(() => wholeRuleSteps(asImported(rule, stored ? stored.version + 1 : rule.version), stored, true));
      return IMPORTED;
    } catch (error) {
      if (error instanceof Refused) return skipped('tax_rule', error.message);
      // The seed already replaced (a first attempt whose answer was lost) fails the replace's version.
      if (!(error instanceof Conflict) && !(error instanceof VersionMismatch)) throw error;
      // A first attempt that was applied though its answer was lost; else the store's limit of rules.
      const now = await taxRules.read(rule.id);
      return now && contentOf(now) === contentOf(rule) ? UNCHANGED : skipped('tax_rule', error.message);
    }
  }

  /**
   * The verdict on a record whose id is in the table, other than an update: unchanged; kept (changed
   * through the API since, or, without --update, in the source, with both dates then); a conflict
   * (changed on both sides, with --update); or another record's id.
   */
  private alreadyThere(what: string, table: string, stored: Stored, imported: Stored, same: boolean): Outcome {
    if (same) return UNCHANGED;
    if (stored.createdAt === imported.createdAt) {
      if (!sourceChanged(stored, imported)) return KEPT;
      const dates = { sourceUpdatedAt: imported.updatedAt, tableUpdatedAt: stored.updatedAt };
      return this.update ? { status: 'conflict', ...dates } : { status: 'kept', ...dates };
    }
    return skipped(`${table}.id`, `id ${imported.id} is another ${what}'s in the table (created ${stored.createdAt}), which is left as it is`);
  }

  private async write<R extends Stored>(kind: Writer<R>, records: readonly R[]): Promise<Map<number, Outcome>> {
    const outcomes = new Map<number, Outcome>();
    const stored = new Map((await kind.readMany(records.map((r) => r.id))).map((record) => [record.id, record]));
    const fresh: R[] = [];
    for (const source of records) {
      const record = asImported(source, source.version);
      const existing = stored.get(record.id);
      const same = existing !== undefined && kind.same(existing, record);
      if (existing && !same && this.update && existing.createdAt === record.createdAt && untouched(existing, record)) {
        const next = asImported(record, existing.version + 1);
        const [prepared = next] = kind.prepare ? await kind.prepare([next]) : [];
        outcomes.set(record.id, await this.updateOne(kind, existing, prepared));
      } else if (existing) outcomes.set(record.id, this.alreadyThere(kind.what, kind.table, existing, record, same));
      else if (sizeOf(record) > ITEM_BYTES) outcomes.set(record.id, skipped(kind.table, `takes about ${Math.round(sizeOf(record) / 1024)} KB, more than the 400 KB a DynamoDB item holds`));
      else fresh.push(record);
    }
    // A transaction cannot hold two locks of one value: a value met again waits for a single write.
    const seen = new Set<string>();
    const together: R[] = [];
    const alone: R[] = [];
    for (const record of kind.prepare && fresh.length ? await kind.prepare(fresh) : fresh) {
      const lock = kind.unique?.lockKey(kind.unique.valueOf(record)).pk;
      (lock !== undefined && seen.has(lock) ? alone : together).push(record);
      if (lock !== undefined) seen.add(lock);
    }
    for (const chunk of transactions(together, kind.perTransaction)) {
      if (this.dryRun) for (const [id, outcome] of await this.wouldWrite(kind, chunk)) outcomes.set(id, outcome);
      else if (!(await this.writeTogether(kind, chunk))) for (const record of chunk) outcomes.set(record.id, await this.writeAlone(kind, record));
      else for (const record of chunk) outcomes.set(record.id, IMPORTED);
    }
    for (const record of alone)
      outcomes.set(record.id, this.dryRun ? present((await this.wouldWrite(kind, [record])).get(record.id), `what ${kind.what} ${record.id} would come to`) : await this.writeAlone(kind, record));
    return outcomes;
  }

  /**
   * The records of a kind the import created whose rows the source no longer has (`sourceIds` holds
   * every id it has, skipped rows included): deleted with `deleteMissing` when nobody changed them
   * since, else left as they are and listed. Records created through the API are not the source's.
   */
  async missing(what: RecordKind, sourceIds: ReadonlySet<number>): Promise<Map<number, Outcome>> {
    const removal = KINDS[what];
    const outcomes = new Map<number, Outcome>();
    for await (const page of removal.pages()) {
      for (const record of page) {
        if (record.importedVersion === undefined || sourceIds.has(record.id)) continue;
        outcomes.set(record.id, await this.removeMissing(removal, record));
      }
    }
    return outcomes;
  }

  private async removeMissing(removal: Kind, record: Stored): Promise<Outcome> {
    const kept = (why: string) => missing(`not in Thelia any more, and ${why}: left as it is`);
    const changedSince = 'changed through the API since the import';
    if (!untouched(record)) return kept(changedSince);
    if (!this.deleteMissing) return missing('not in Thelia any more: --delete-missing deletes it');
    const inUse = await removal.inUse?.(record, this.dryRun ? (this.freedRules.get(record.id) ?? 0) : 0);
    if (this.dryRun) {
      if (inUse) return kept(inUse);
      const rule = removal.rule?.(record);
      if (rule !== undefined) this.freedRules.set(rule, (this.freedRules.get(rule) ?? 0) + 1);
      return DELETED;
    }
    try {
      await patiently(() => commit(removal.remove(record.id, record.version)));
      return DELETED;
    } catch (error) {
      // Deleted by an attempt whose answer was lost (or by someone since it was read).
      if (error instanceof NotFound) return DELETED;
      if (error instanceof VersionMismatch) return kept(changedSince);
      if (error instanceof Conflict) return kept(error.message);
      throw error;
    }
  }

  /** An untouched record replaced by the source's newer content, at its version: a change by `import`. */
  private async updateOne<R extends Stored>(kind: Writer<R>, stored: R, next: R): Promise<Outcome> {
    if (this.dryRun) return UPDATED;
    try {
      await persist(() => kind.updateSteps(stored, next));
      return UPDATED;
    } catch (error) {
      if (error instanceof Refused || error instanceof TooLarge) return skipped(kind.table, error.message);
      if (!(error instanceof Conflict) && !(error instanceof VersionMismatch)) throw error;
      // Applied by an attempt whose answer was lost, or changed by someone meanwhile.
      const [now] = await kind.readMany([stored.id]);
      if (now && kind.same(now, next)) return UNCHANGED;
      if (error instanceof Conflict && error.field !== undefined) return skipped(GONE[error.field] ?? kind.unique?.column ?? kind.table, error.message);
      return now ? this.alreadyThere(kind.what, kind.table, now, next, false) : skipped(`${kind.table}.id`, error.message);
    }
  }

  /** Whether the records were written together; false when one of them could not be. */
  private async writeTogether<R extends Stored>(kind: Writer<R>, records: readonly R[]): Promise<boolean> {
    try {
      await persist(() => kind.steps(records));
      return true;
    } catch (error) {
      if (error instanceof Conflict || error instanceof Refused || error instanceof TooLarge) return false;
      throw error;
    }
  }

  private async writeAlone<R extends Stored>(kind: Writer<R>, record: R): Promise<Outcome> {
    try {
      await persist(() => kind.steps([record]));
      return IMPORTED;
    } catch (error) {
      if (error instanceof Refused || error instanceof TooLarge) return skipped(kind.table, error.message);
      if (!(error instanceof Conflict)) throw error;
      return this.refused(kind, record, error);
    }
  }

  /** What a record's write refused by one of its conditions comes to (the run's and the dry run's verdict alike). */
  private async refused<R extends Stored>(kind: Writer<R>, record: R, error: Conflict): Promise<Outcome> {
    const column = error.field === undefined ? undefined : GONE[error.field];
    if (column) return skipped(column, error.message);
    if (error.field !== undefined && kind.unique) {
      const lock = await readItem(kind.unique.lockKey(kind.unique.valueOf(record)));
      return this.takenBy(kind, record, lock && kind.unique.ownerOf(lock));
    }
    // The id was taken since it was read, or its history is kept from a record deleted since it was made.
    const [existing] = await kind.readMany([record.id]);
    return existing ? this.alreadyThere(kind.what, kind.table, existing, record, kind.same(existing, record)) : skipped(`${kind.table}.id`, error.message);
  }

  private takenBy<R extends Stored>(kind: Writer<R>, record: R, owner: number | undefined): Outcome {
    const holder = owner === undefined ? `another ${kind.what}` : `${kind.what} ${owner}`;
    const unique = present(kind.unique, `the unique value of a ${kind.what}`);
    return skipped(unique.column, `${holder} already has ${JSON.stringify(unique.valueOf(record))} (compared case-insensitively)`);
  }

  /**
   * A dry run's verdict, from the very steps the run would write: a step that may only create its
   * item (a lock, a change of the record's history) whose item is there refuses the record as the
   * run's transaction would; and a unique value is free only once in this run.
   */
  private async wouldWrite<R extends Stored>(kind: Writer<R>, records: readonly R[]): Promise<Map<number, Outcome>> {
    const planned = records.map((record) => ({ record, creates: kind.steps([record]).filter(createsOnly) }));
    const found = new Map((await readItems(planned.flatMap(({ creates }) => creates.map(keyOfStep)))).map((item) => [keyText(item as Key), item]));
    const outcomes = new Map<number, Outcome>();
    for (const { record, creates } of planned) {
      const refusing = creates.find((step) => found.has(keyText(keyOfStep(step))));
      if (refusing) {
        const error = refusing.onConditionFailed?.(found.get(keyText(keyOfStep(refusing))));
        outcomes.set(record.id, error instanceof Conflict ? await this.refused(kind, record, error) : skipped(kind.table, error?.message ?? 'refused'));
        continue;
      }
      const unique = kind.unique;
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
const keyOfStep = (step: WriteStep): Key => {
  const item = present(step.item.Put, 'the put of a create-only step').Item as Key;
  return { pk: item.pk, sk: item.sk };
};
const keyText = (key: Key): string => `${key.pk}\u0000${key.sk}`;
