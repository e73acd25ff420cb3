/**
 * Atomic writes. Each step of a transaction may say which problem its failed condition means
 * (a 404 for "the record is gone", a 409 for "the email is taken"...), so that a cancelled
 * transaction becomes the right answer without a read before the write.
 */
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { db, tableName } from './client.js';
import { HttpProblem, notFound } from '../http/problem.js';
import type { Key } from './keys.js';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface WriteStep {
  item: TransactItem;
  /**
   * What to throw when this step's condition fails, given the item as it was (when it existed):
   * a problem to answer with, or WriteConflict to read again and retry.
   */
  onConditionFailed?: OnConditionFailed;
}

/** Raised when another transaction touched the same items at the same time; safe to retry. */
export class WriteConflict extends Error {
  constructor() {
    super('concurrent write conflict');
    this.name = 'WriteConflict';
  }
}

type Values = Record<string, unknown>;
export type OnConditionFailed = (current: Values | undefined) => Error;

/** A condition expression with its placeholders. */
export interface Condition {
  expression: string;
  names?: Record<string, string>;
  values?: Values;
}

const conditionParts = (condition: Condition) => ({
  ConditionExpression: condition.expression,
  ...(condition.names ? { ExpressionAttributeNames: condition.names } : {}),
  ...(condition.values ? { ExpressionAttributeValues: condition.values } : {}),
});

export const put = (item: Values, condition?: Condition, onConditionFailed?: OnConditionFailed): WriteStep => ({
  item: { Put: { TableName: tableName(), Item: item, ...(condition ? conditionParts(condition) : {}) } },
  onConditionFailed,
});

export const putNew = (item: Values, onConditionFailed: OnConditionFailed): WriteStep =>
  put(item, { expression: 'attribute_not_exists(pk)' }, onConditionFailed);

export interface UpdateSpec {
  update: string;
  condition?: string;
  names?: Record<string, string>;
  values?: Values;
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

export const remove = (key: Key, condition?: Condition, onConditionFailed?: OnConditionFailed): WriteStep => ({
  item: { Delete: { TableName: tableName(), Key: key, ...(condition ? conditionParts(condition) : {}) } },
  onConditionFailed,
});

/** A condition on an item the transaction does not change (e.g. "this rule is still the default"). */
export const check = (key: Key, condition: Condition, onConditionFailed: OnConditionFailed): WriteStep => ({
  item: { ConditionCheck: { TableName: tableName(), Key: key, ...conditionParts(condition) } },
  onConditionFailed,
});

/** The condition that a uniqueness item (an email's, a ref's) still belongs to the record `id`. */
export function ownedBy(attribute: string, id: number): Condition {
  return { expression: '#owner = :owner', names: { '#owner': attribute }, values: { ':owner': id } };
}

/**
 * The condition of a write that must find the record at the version the client expects (If-Match,
 * 412 when stale) or, without If-Match, at the version just read (a concurrent change: retry).
 */
export function atVersion(expectedVersion: number | undefined, readVersion: number): Condition {
  return { expression: 'version = :expected', values: { ':expected': expectedVersion ?? readVersion } };
}

export const versionMismatch =
  (expectedVersion: number | undefined, what = 'record'): OnConditionFailed =>
  (current) =>
    current === undefined
      ? notFound(what)
      : expectedVersion !== undefined
        ? new HttpProblem(412, `the ${what} has changed since version ${expectedVersion} (If-Match)`)
        : new WriteConflict();

/** Steps that explain their failure get the item back, so that no read is needed to explain it. */
function withOldItemOnFailure(step: WriteStep): TransactItem {
  if (!step.onConditionFailed) return step.item;
  const [kind, operation] = Object.entries(step.item)[0] as [keyof TransactItem, object];
  return { [kind]: { ...operation, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } } as TransactItem;
}

/** Writes every step or none. Throws the failing step's problem, or WriteConflict. */
export async function writeAtomically(steps: WriteStep[]): Promise<void> {
  try {
    await db().send(new TransactWriteCommand({ TransactItems: steps.map(withOldItemOnFailure) }));
  } catch (error) {
    if (!(error instanceof TransactionCanceledException)) throw error;
    const reasons = error.CancellationReasons ?? [];
    const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
    if (failed >= 0) {
      const old = reasons[failed]?.Item;
      const current = old ? unmarshall(old as Parameters<typeof unmarshall>[0]) : undefined;
      throw steps[failed]?.onConditionFailed?.(current) ?? new WriteConflict();
    }
    if (reasons.some((r) => r.Code === 'TransactionConflict')) throw new WriteConflict();
    throw error;
  }
}

/**
 * Runs a read-then-write operation again when a concurrent transaction got in its way. The
 * attempts are bounded and jittered; past them the caller gets a 409 it may retry.
 */
export async function retryOnConflict<T>(operation: () => Promise<T>, attempts = 12): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (!(error instanceof WriteConflict) || attempt >= attempts) {
        if (error instanceof WriteConflict) throw new HttpProblem(409, 'too many concurrent changes of this record; retry');
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}
