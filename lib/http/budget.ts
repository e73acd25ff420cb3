/**
 * The time budget of a request (docs/conventions.md): every request is answered within 10 seconds, and on
 * Lambda within what is left of the invocation, less a margin to answer in. Every DynamoDB call of
 * the request — the key lookup and the idempotency record included — ends with the budget, and
 * comes out as `Unavailable` (503 + Retry-After).
 */
import type { Context } from 'aws-lambda';
import { withDeadline } from '../db/client.js';
import { currentScope } from '../db/scope.js';

export const REQUEST_BUDGET_MS = 10_000;
/** Time kept back from Lambda's own timeout to answer in. */
const MARGIN_MS = 1_000;

/** A request's budget as configured: STORE_REQUEST_BUDGET_MS, default 10 s. */
export const configuredBudgetMs = (): number => Number(process.env.STORE_REQUEST_BUDGET_MS ?? REQUEST_BUDGET_MS);

/** This request's budget: the configured one, within what the invocation has left. */
export function budgetOf(context: Pick<Context, 'getRemainingTimeInMillis'>): number {
  return Math.max(0, Math.min(configuredBudgetMs(), context.getRemainingTimeInMillis() - MARGIN_MS));
}

/** When each request's budget, started by withinBudget, ends (epoch ms). */
const budgetEnds = new WeakMap<object, number>();

/** When this request's budget ends: as withinBudget started it, else from now. */
export const budgetEnd = (context: Pick<Context, 'getRemainingTimeInMillis'>): number => budgetEnds.get(context) ?? Date.now() + budgetOf(context);

/**
 * Runs `work` with its DynamoDB calls ending `keptMs` before the request's budget does: the time kept
 * for what the request does after it (a batch recording and sending its answer, whatever its rows met).
 */
export function withTimeKept<T>(context: Pick<Context, 'getRemainingTimeInMillis'>, keptMs: number, work: () => Promise<T>): Promise<T> {
  const early = AbortSignal.timeout(Math.max(0, budgetEnd(context) - keptMs - Date.now()));
  const budget = currentScope().deadline;
  return withDeadline(budget ? AbortSignal.any([budget, early]) : early, work);
}

/** Runs a Lambda handler within its request's budget. */
export function withinBudget<Event, Result, Ctx extends Context>(handler: (event: Event, context: Ctx) => Promise<Result>) {
  return async (event: Event, context: Ctx): Promise<Result> => {
    const controller = new AbortController();
    const budget = budgetOf(context);
    budgetEnds.set(context, Date.now() + budget);
    const timer = setTimeout(() => controller.abort(new Error('the request budget is spent')), budget);
    try {
      return await withDeadline(controller.signal, () => handler(event, context));
    } finally {
      clearTimeout(timer);
    }
  };
}
