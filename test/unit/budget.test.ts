import { afterEach, describe, expect, it } from 'vitest';
import { budgetOf, REQUEST_BUDGET_MS } from '../../lib/http/budget.js';

const remaining = (ms: number) => ({ getRemainingTimeInMillis: () => ms });

describe('a request budget', () => {
  afterEach(() => {
    delete process.env.STORE_REQUEST_BUDGET_MS;
  });

  it('is 10 s by default (docs/conventions.md), within what the invocation has left less a second to answer in', () => {
    expect(REQUEST_BUDGET_MS).toBe(10_000);
    expect(budgetOf(remaining(30_000))).toBe(10_000);
    expect(budgetOf(remaining(15_000))).toBe(10_000);
    expect(budgetOf(remaining(6_000))).toBe(5_000);
    expect(budgetOf(remaining(500))).toBe(0);
  });

  it('may be set shorter (STORE_REQUEST_BUDGET_MS), never past the invocation', () => {
    process.env.STORE_REQUEST_BUDGET_MS = '2000';
    expect(budgetOf(remaining(30_000))).toBe(2_000);
    process.env.STORE_REQUEST_BUDGET_MS = '60000';
    expect(budgetOf(remaining(15_000))).toBe(14_000);
  });
});
