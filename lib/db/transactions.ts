/**
 * Atomic writes. Each step of a transaction may say which error its failed condition means (the
 * record is gone, a value is taken...), so that a cancelled transaction explains itself without a
 * read before the write.
 */
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { request, tableName } from './client.js';
import { Conflict, Contended, isThrottled, NotFound, Refused, Unavailable, VersionMismatch, WriteConflict } from './errors.js';
import { currentUsage } from './usage.js';
import type { Item, OnConditionFailed, TransactItem, WriteStep } from './step.js';
import type { Key } from './keys.js';
import { fullJitter, retrying } from './retry.js';
import { isJoinable, joinSteps } from './joined-steps.js';
import { committed } from './commits.js';

export type { OnConditionFailed, OutcomeRecorder, WriteStep } from './step.js';

/** A condition expression with its placeholders. */
export interface Condition {
  expression: string;
  names?: Record<string, string>;
  values?: Item;
}

const conditionParts = (condition: Condition | undefined) =>
  condition
    ? {
        ConditionExpression: condition.expression,
        ...(condition.names && Object.keys(condition.names).length ? { ExpressionAttributeNames: condition.names } : {}),
        ...(condition.values && Object.keys(condition.values).length ? { ExpressionAttributeValues: condition.values } : {}),
      }
    : {};

/** The key of the item a step writes (or checks). */
export function itemKeyOf({ item }: WriteStep): Key {
  const key = (item.Put?.Item ?? item.Update?.Key ?? item.Delete?.Key ?? item.ConditionCheck?.Key) as Key;
  return { pk: key.pk, sk: key.sk };
}

export const put = (item: Item, condition?: Condition, onConditionFailed?: OnConditionFailed): WriteStep => ({
  item: { Put: { TableName: tableName(), Item: item, ...conditionParts(condition) } },
  onConditionFailed,
});

/**
 * One write on its own (not a step of a transaction), on condition: `written` with its answer, or
 * not, with the item as it was when the condition failed (when the write asked for it with
 * ReturnValuesOnConditionCheckFailure: ALL_OLD). For leases, windows and records that stand alone.
 */
export async function conditionally<T>(write: Promise<T>): Promise<{ written: true; answer: T } | { written: false; found: Item | undefined }> {
  try {
    return { written: true, answer: await write };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    return { written: false, found: error.Item && unmarshall(error.Item) };
  }
}

/** One item put on its own, on condition: `written`, or not, with the item found (a lease taken by another, a record already there). */
export const putIf = async (item: Item, condition: Condition): Promise<{ written: true } | { written: false; found: Item | undefined }> => {
  const put = await conditionally(
    request((db, options) => db.send(new PutCommand({ TableName: tableName(), Item: item, ...conditionParts(condition), ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }), options)),
  );
  return put.written ? { written: true } : put;
};

export const EXISTS: Condition = { expression: 'attribute_exists(pk)' };
export const ABSENT: Condition = { expression: 'attribute_not_exists(pk)' };

export interface UpdateSpec {
  update: string;
  condition?: string;
  names?: Record<string, string>;
  values?: Item;
}

export const update = (key: Key, spec: UpdateSpec, onConditionFailed?: OnConditionFailed): WriteStep => ({
  item: {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: spec.update,
      ...(spec.condition ? { ConditionExpression: spec.condition } : {}),
      ...(spec.names && Object.keys(spec.names).length ? { ExpressionAttributeNames: spec.names } : {}),
      ...(spec.values && Object.keys(spec.values).length ? { ExpressionAttributeValues: spec.values } : {}),
    },
  },
  onConditionFailed,
});

/** A change to one record's attributes, applied in place: fields set, numbers added, expected values. */
export interface Patch<R> {
  set?: Partial<R>;
  /** Fields set only where the item has none yet. */
  setMissing?: Partial<R>;
  add?: Partial<Record<keyof R & string, number>>;
  when?: Partial<R>;
  /** Lists that must be missing or empty (an entity's pending log). */
  whenEmpty?: readonly string[];
}

/** The update step of a patch, with placeholders that cannot clash; the item must exist. */
export function patchStep(itemKey: Key, patch: Patch<Item>, onConditionFailed?: OnConditionFailed): WriteStep {
  const names: Record<string, string> = {};
  const values: Item = {};
  let n = 0;
  const placeholders = (field: string, value: unknown) => {
    n++;
    names[`#f${n}`] = field;
    values[`:v${n}`] = value;
    return [`#f${n}`, `:v${n}`] as const;
  };
  const sets = [
    ...Object.entries(patch.set ?? {}).map(([field, value]) => placeholders(field, value).join(' = ')),
    ...Object.entries(patch.setMissing ?? {}).map(([field, value]) => {
      const [name, placeholder] = placeholders(field, value);
      return `${name} = if_not_exists(${name}, ${placeholder})`;
    }),
  ];
  const adds = Object.entries(patch.add ?? {}).map(([field, value]) => placeholders(field, value).join(' '));
  const conditions = [
    EXISTS.expression,
    ...Object.entries(patch.when ?? {}).map(([field, value]) => placeholders(field, value).join(' = ')),
    ...(patch.whenEmpty ?? []).map((field) => {
      const [name, zero] = placeholders(field, 0);
      return `(attribute_not_exists(${name}) OR size(${name}) = ${zero})`;
    }),
  ];
  const clauses = [...(sets.length ? [`SET ${sets.join(', ')}`] : []), ...(adds.length ? [`ADD ${adds.join(', ')}`] : [])];
  return update(itemKey, { update: clauses.join(' '), condition: conditions.join(' AND '), names, values }, onConditionFailed);
}

export const remove = (key: Key, condition?: Condition, onConditionFailed?: OnConditionFailed): WriteStep => ({
  item: { Delete: { TableName: tableName(), Key: key, ...conditionParts(condition) } },
  onConditionFailed,
});

export const check = (key: Key, condition: Condition, onConditionFailed: OnConditionFailed): WriteStep => ({
  item: { ConditionCheck: { TableName: tableName(), Key: key, ...conditionParts(condition), ConditionExpression: condition.expression } },
  onConditionFailed,
});

/** A condition that an attribute holds a value (for example: a lock item still has its owner). */
export const holds = (attribute: string, value: unknown): Condition => ({
  expression: '#held = :held',
  names: { '#held': attribute },
  values: { ':held': value },
});

/**
 * The condition of a write that must find the record at the version the caller expects (412 when
 * stale) or, without one, at the version just read (a concurrent change: read again and retry).
 */
export const atVersion = (expected: number | undefined, read: number, emptyLog?: string): Condition => ({
  expression: emptyLog === undefined ? 'version = :expectedVersion' : 'version = :expectedVersion AND (attribute_not_exists(#log) OR size(#log) = :zero)',
  values: { ':expectedVersion': expected ?? read, ...(emptyLog === undefined ? {} : { ':zero': 0 }) },
  ...(emptyLog === undefined ? {} : { names: { '#log': emptyLog } }),
});

/**
 * What a failed version condition means: gone, stale for the caller, or a race to retry (the
 * record at the version expected, but with writes pending in its log: entity-declaration.ts).
 */
export const versionFailure =
  (what: string, expected: number | undefined): OnConditionFailed =>
  (current) =>
    current === undefined ? new NotFound(what) : expected !== undefined && current.version !== expected ? new VersionMismatch(what, expected) : new WriteConflict();

/** A failure that only a concurrent change can cause: read again and retry. */
export const raced: OnConditionFailed = () => new WriteConflict();

/**
 * `steps` with the field their Conflicts name renamed by `fieldOf`: an entity names a unique value
 * by its lock (a sale element's `ref`), a request by its input (an entry's `pse[2].reference`). A
 * joinable step (a count's addition, a marker) stays itself: it is joined by what it is, and its
 * failure is its join's to name.
 */
export const namingConflicts = (steps: readonly WriteStep[], fieldOf: (field: string) => string): WriteStep[] =>
  steps.map((step) => {
    const explain = step.onConditionFailed;
    if (!explain || isJoinable(step)) return step;
    return {
      ...step,
      onConditionFailed: (current) => {
        const error = explain(current);
        return error instanceof Conflict && error.field !== undefined ? new Conflict(error.message, fieldOf(error.field)) : error;
      },
    };
  });

/** Steps that explain their failure get the item back, so that no read is needed to explain it. */
function withOldItemOnFailure(step: WriteStep): TransactItem {
  if (!step.onConditionFailed) return step.item;
  const { Put, Update, Delete, ConditionCheck } = step.item;
  const old = { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } as const;
  if (Put) return { Put: { ...Put, ...old } };
  if (Update) return { Update: { ...Update, ...old } };
  if (Delete) return { Delete: { ...Delete, ...old } };
  return ConditionCheck ? { ConditionCheck: { ...ConditionCheck, ...old } } : step.item;
}

/** A transaction cancelled by the condition of one of its steps: which one, and the error that step declares; `failing`, every step whose condition failed. */
export class StepFailed extends Error {
  constructor(
    readonly index: number,
    readonly error: Error,
    readonly failing: readonly number[] = [index],
  ) {
    super(error.message);
    this.name = 'StepFailed';
  }
}

/**
 * Writes every step or none. Throws the failing step's error, WriteConflict, Unavailable, or Refused.
 * A resource's writes are plans sent by write-plan.ts's `commit`; this sends the steps of tooling's.
 */
export async function writeAtomically(steps: readonly WriteStep[]): Promise<void> {
  try {
    await writeSteps(steps);
  } catch (error) {
    throw error instanceof StepFailed ? error.error : error;
  }
}

/**
 * Writes every step or none, as writeAtomically does; a failed condition is a StepFailed that names
 * the step. Steps made joinable are written joined (joined-steps.ts); the steps a cancelled
 * transaction names are the ones given (a joined group's first).
 */
export async function writeSteps(all: readonly WriteStep[]): Promise<void> {
  // A plan that changes nothing (an update to what is there) has nothing to send.
  if (all.length === 0) return;
  const { steps, from } = joinSteps(all);
  try {
    await request((db, requestOptions) => db.send(new TransactWriteCommand({ TransactItems: steps.map(withOldItemOnFailure) }), requestOptions));
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error instanceof Error && error.name === 'ValidationException' ? new Refused(error.message, error) : error;
    const reasons = error.CancellationReasons ?? [];
    const stepsWith = (code: string) => reasons.flatMap((reason, k) => (reason.Code === code ? [k] : []));
    const given = (k: number) => from[k] ?? k;
    const [failed, ...others] = stepsWith('ConditionalCheckFailed');
    if (failed !== undefined) {
      const old = reasons[failed]?.Item;
      const current = old ? unmarshall(old as Parameters<typeof unmarshall>[0]) : undefined;
      throw new StepFailed(given(failed), steps[failed]?.onConditionFailed?.(current) ?? new WriteConflict(), [failed, ...others].map(given));
    }
    const conflicting = stepsWith('TransactionConflict');
    if (conflicting.length) throw new WriteConflict(conflicting.map(given));
    const invalid = reasons.find((r) => r.Code === 'ValidationError');
    if (invalid) throw new Refused(invalid.Message ?? 'ValidationError', error);
    if (reasons.some((r) => isThrottled(r.Code))) {
      const usage = currentUsage();
      if (usage) usage.throttled++;
      throw new Unavailable(error);
    }
    throw error;
  }
  // Only once DynamoDB said so, outside what reads its refusals.
  committed(all);
}

/** The longest wait between two attempts of `retryOnConflict`. */
const MAX_BACKOFF_MS = 320;

/**
 * Runs a read-then-write operation again when a concurrent transaction got in its way (DynamoDB
 * cancels a transaction on an item another one is writing). Waits are jittered over a window that
 * doubles each time (full jitter), so that writers of one record spread out instead of meeting
 * again. A request's retries are bounded by its budget (client.ts `withDeadline`: then
 * `OutOfTime`), tooling's by the attempts (40 wait at most about 12 s, 6 s on average). Past them
 * the item is busy, not taken: `Contended`, an `Unavailable` the caller may try again later.
 */
export const retryOnConflict = <T>(operation: () => Promise<T>, attempts = 40): Promise<T> =>
  retrying(operation, { attempts, retryable: (error) => error instanceof WriteConflict, waitMs: fullJitter(10, MAX_BACKOFF_MS), exhausted: () => new Contended() });
