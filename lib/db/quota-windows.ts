/**
 * A quota of requests per fixed window, one count for every container that serves the subject
 * (ARCHITECTURE.md, "Request quotas"). Windows are aligned on the epoch (a 60-second window starts
 * at every whole minute), so that every container agrees on which one it is in, and each window is
 * an item of its own: `<prefix>#<subject>#<window start>`, which expires by itself an hour after.
 *
 * A container does not write for every request. It leases a few units of the window at once
 * (`taken`), hands them to its requests without a write, and reports what they used (`used`) with
 * its next lease, which it takes beside the request that uses its last unit. Leases are granted only
 * while `taken` stays within the quota. Once they are not, the container goes exact: each request is
 * admitted by a write of its own, on condition that `used` (with what this container has not
 * reported yet) is under the quota and `taken` under the quota and its allowance (5 %). So:
 *   - one container admits exactly the quota, however its requests interleave;
 *   - several never admit more than the quota and its allowance (`taken` counts every admission);
 *   - nor less than the quota, as long as the units leased and unused when the window runs out fit
 *     in the allowance (a lease is 1 to 25 units, held by each container serving the key);
 *   - a request costs a write only once per lease, in parallel with the request's own work.
 */
import * as v from 'valibot';
import { defineStored } from './stored.js';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { request, tableName } from './client.js';
import { table } from './table.js';

/** A quota window's counts as its item holds them: units leased (`taken`) and admitted (`used`). */
const StoredWindowCounts = defineStored('quota window', { taken: v.optional(v.number(), 0), used: v.optional(v.number(), 0) });
import { conditionally } from './transactions.js';

export interface Quota {
  /** Requests admitted per window. */
  readonly requests: number;
  /** The window's length. */
  readonly seconds: number;
}

export type Admission =
  /** `settling`: a lease being renewed beside the request, which its answer waits for (Lambda freezes what is left running). */
  | { readonly admitted: true; readonly remaining: number; readonly resetSeconds: number; readonly settling: Promise<void> }
  | { readonly admitted: false; readonly remaining: 0; readonly resetSeconds: number };

/** How far past its quota a window may go, to make up for units leased by containers and not used: 5 %. */
export const allowance = (quota: Quota): number => Math.floor(quota.requests * 0.05);

/** How many units a container leases at once: few enough that what it holds unreported stays within 5 % of most quotas. */
export const leaseSize = (quota: Quota): number => Math.min(25, Math.max(1, Math.floor(quota.requests / 160)));

/** How long a window's item outlives it (TTL deletion is lazy, and a late report may still come). */
const KEEP_SECONDS = 3_600;

interface WindowState {
  readonly start: number;
  /** Leased units not handed out yet. */
  leased: number;
  /** Units admitted by an exact write (already counted in `used`) not handed out yet. */
  admittedExactly: number;
  /** Leased units handed out and not reported yet. */
  unreported: number;
  /** Leased units handed out whose report is under way. */
  reporting: number;
  /** `used` as the last write left it. */
  used: number;
  exact: boolean;
  exhausted: boolean;
  renewal: Promise<void> | undefined;
}

export function defineQuotaWindows(prefix: string) {
  const states = new Map<string, WindowState>();

  const itemKey = (subject: string, start: number) => ({ pk: `${prefix}#${subject}#${start}`, sk: 'WINDOW' });

  /** One conditional ADD to the window's item; the item as it was when the condition failed. */
  async function add(subject: string, state: WindowState, quota: Quota, adds: { taken: number; used: number }, condition?: { expression: string; values: Record<string, number> }) {
    const added = await conditionally(
      request((db, options) =>
        db.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: itemKey(subject, state.start),
            UpdateExpression: 'ADD taken :taken, used :used SET #expires = if_not_exists(#expires, :expires)',
            ...(condition ? { ConditionExpression: condition.expression } : {}),
            ExpressionAttributeNames: { '#expires': table.ttlAttribute },
            ExpressionAttributeValues: { ':taken': adds.taken, ':used': adds.used, ':expires': state.start + quota.seconds + KEEP_SECONDS, ...condition?.values },
            ReturnValues: 'UPDATED_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
          options,
        ),
      ),
    );
    // What the window holds now (its new counts) or held when the condition failed (none: not opened yet).
    const window = StoredWindowCounts.parse((added.written ? added.answer.Attributes : added.found) ?? {});
    state.used = window.used;
    return added.written ? { written: true as const } : { written: false as const, taken: window.taken };
  }

  /**
   * Reports what was handed out and gets more: a lease while the quota has units to lease, else
   * (when a request waits) one exact admission. Leaves the state exhausted when nothing is left.
   */
  async function renew(subject: string, state: WindowState, quota: Quota, forWaitingRequest: boolean): Promise<void> {
    const reported = state.unreported;
    state.unreported = 0;
    state.reporting += reported;
    try {
      let wanted = leaseSize(quota);
      while (!state.exact) {
        const leased = await add(
          subject,
          state,
          quota,
          { taken: wanted, used: reported },
          {
            expression: 'attribute_not_exists(taken) OR taken <= :most',
            values: { ':most': quota.requests - wanted },
          },
        );
        if (leased.written) {
          state.leased += wanted;
          return;
        }
        // What is left of the quota, if less than a lease; else every unit is leased: go exact.
        wanted = quota.requests - leased.taken;
        if (wanted < 1) state.exact = true;
      }
      if (!forWaitingRequest) {
        if (reported > 0) await add(subject, state, quota, { taken: 0, used: reported });
        return;
      }
      const admitted = await add(
        subject,
        state,
        quota,
        { taken: 1, used: reported + 1 },
        {
          expression: '(attribute_not_exists(used) OR used <= :mostUsed) AND (attribute_not_exists(taken) OR taken < :cap)',
          values: { ':mostUsed': quota.requests - reported - 1, ':cap': quota.requests + allowance(quota) },
        },
      );
      if (admitted.written) {
        state.admittedExactly += 1;
        return;
      }
      // What was handed out is counted all the same; what is left of the window is refused.
      if (reported > 0) await add(subject, state, quota, { taken: 0, used: reported });
      state.exhausted = true;
    } catch (error) {
      state.unreported += reported; // reported with the next write
      throw error;
    } finally {
      state.reporting -= reported;
    }
  }

  const currentState = (subject: string, quota: Quota, nowSeconds: number): WindowState => {
    const start = nowSeconds - (nowSeconds % quota.seconds);
    // A quota set anew starts afresh here (its window's item still holds what was used in it).
    const name = `${subject}|${quota.requests}/${quota.seconds}`;
    const known = states.get(name);
    if (known?.start === start) return known;
    // A new window: what the former one leased and did not use lapses with it.
    const state: WindowState = { start, leased: 0, admittedExactly: 0, unreported: 0, reporting: 0, used: 0, exact: false, exhausted: false, renewal: undefined };
    states.set(name, state);
    return state;
  };

  /** A renewal nobody waits for but the request's answer: its failure only means the next request renews. */
  function renewBeside(subject: string, state: WindowState, quota: Quota): void {
    const renewal: Promise<void> = renew(subject, state, quota, false)
      .catch(() => undefined)
      .finally(() => {
        if (state.renewal === renewal) state.renewal = undefined;
      });
    state.renewal = renewal;
  }

  return {
    /** Admits one request of `subject` under `quota`, or says it is past it and for how long. */
    async admit(subject: string, quota: Quota): Promise<Admission> {
      for (;;) {
        const nowSeconds = Date.now() / 1000;
        const state = currentState(subject, quota, Math.floor(nowSeconds));
        const resetSeconds = Math.max(1, Math.ceil(state.start + quota.seconds - nowSeconds));
        if (state.exhausted) return { admitted: false, remaining: 0, resetSeconds };
        if (state.leased > 0 || state.admittedExactly > 0) {
          if (state.admittedExactly > 0) state.admittedExactly -= 1;
          else {
            state.leased -= 1;
            state.unreported += 1;
          }
          // The last leased unit renews the lease beside its request, so that the next one finds units.
          if (state.leased === 0 && !state.exact && !state.renewal) renewBeside(subject, state, quota);
          const remaining = Math.max(0, quota.requests - state.used - state.unreported - state.reporting);
          return { admitted: true, remaining, resetSeconds, settling: state.renewal ?? Promise.resolve() };
        }
        if (state.renewal) {
          await state.renewal.catch(() => undefined);
          continue;
        }
        const renewal = renew(subject, state, quota, true).finally(() => {
          if (state.renewal === renewal) state.renewal = undefined;
        });
        state.renewal = renewal;
        await renewal;
      }
    },
  };
}
