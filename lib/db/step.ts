/**
 * What a write is made of, as every module of the data layer names it: a stored item, one step of a
 * transaction, what its failed condition means, and the step that records a write's outcome. Types
 * only, importing nothing of ours: the work's scope (scope.ts) names them without a circle.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';

/** A stored item, as lib-dynamodb reads and writes it. */
export type Item = Record<string, unknown>;

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** What to throw when a step's condition fails, given the item as it was (when it existed). */
export type OnConditionFailed = (current: Item | undefined) => Error;

export interface WriteStep {
  item: TransactItem;
  onConditionFailed?: OnConditionFailed | undefined;
}

/** Makes the step that records a write's outcome (idempotency-store.ts), for the work it runs in. */
export type OutcomeRecorder = (outcome: unknown) => WriteStep;
