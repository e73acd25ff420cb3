/**
 * lib/db/counters.ts on DynamoDB Local: ids are handed out once each, in the order they were asked,
 * those asked in one turn by one piece of work (a batch's rows planned at once) by one ADD.
 */
import { describe, expect, it } from 'vitest';
import { db } from '../lib/db/client.js';
import { allocateId, type Counter } from '../lib/db/counters.js';
import { withinScope } from '../lib/db/scope.js';

const counter: Counter = { name: 'ID_COUNTER_TEST', firstId: 1 };

/** The DynamoDB requests `work` makes. */
async function requestsOf<T>(work: () => Promise<T>): Promise<{ result: T; requests: number }> {
  const usage = { requests: 0, capacity: 0, throttled: 0 };
  const result = await withinScope({ usage }, work);
  return { result, requests: usage.requests };
}

describe('an id counter', () => {
  it('hands out the ids asked in one turn in the order asked, by one request', async () => {
    const first = await allocateId(counter);
    const { result, requests } = await requestsOf(() => Promise.all(Array.from({ length: 20 }, () => allocateId(counter))));
    expect(result).toEqual(Array.from({ length: 20 }, (_, k) => first + 1 + k));
    expect(requests).toBe(1);
    expect(await allocateId(counter)).toBe(first + 21);
  });

  it('never hands one id to two pieces of work asking at once, each asking by its own request', async () => {
    const asked = await Promise.all(Array.from({ length: 6 }, () => requestsOf(() => Promise.all(Array.from({ length: 5 }, () => allocateId(counter))))));
    const ids = asked.flatMap(({ result }) => result);
    expect(new Set(ids).size).toBe(30);
    for (const { result, requests } of asked) {
      expect(requests).toBe(1);
      expect(result).toEqual([...result].sort((a, b) => a - b));
    }
  });

  it('fails every id of a turn whose request fails, and hands out no id for it', async () => {
    const before = await allocateId(counter);
    db().middlewareStack.add(
      () => async () => {
        throw Object.assign(new Error('refused for the test'), { name: 'ValidationException' });
      },
      { step: 'initialize', name: 'refuseAllocation' },
    );
    const outcomes = await Promise.allSettled([allocateId(counter), allocateId(counter)]);
    db().middlewareStack.remove('refuseAllocation');
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(await allocateId(counter)).toBe(before + 1);
  });
});
