/**
 * Steps that one transaction writes as fewer. A step made joinable under a key is written together
 * with the other steps of its transaction under the same key: as the steps its `join` makes of them
 * all, at the place of the first. Two kinds need it: additions to one count shard, which DynamoDB
 * would refuse as two operations on one item (they are summed: sharded-count.ts), and the pending
 * markers of one partition, which a transaction need not write one per change (changes.ts: one
 * marker for them all, so the placer deletes one item instead of each).
 */
import type { WriteStep } from './step.js';

type Join = (steps: readonly WriteStep[]) => WriteStep[];

const joinables = new WeakMap<WriteStep, { key: string; join: Join }>();

/** `step`, written joined with the steps of its transaction made joinable under `key` (`join` of them all, the first's). */
export function joinable(step: WriteStep, key: string, join: Join): WriteStep {
  joinables.set(step, { key, join });
  return step;
}

/** Whether `step` is written joined with others: it is itself (what its join reads is kept by the step, not a copy of it). */
export const isJoinable = (step: WriteStep): boolean => joinables.has(step);

/**
 * The steps as one transaction writes them, each group joined at the place of its first member;
 * `from[k]` is the step that written step k came from (a joined group's first), so that a cancelled
 * transaction's reasons name the steps its writer planned.
 */
export function joinSteps(steps: readonly WriteStep[]): { steps: WriteStep[]; from: number[] } {
  const groups = new Map<string, number[]>();
  for (const [k, step] of steps.entries()) {
    const key = joinables.get(step)?.key;
    if (key === undefined) continue;
    const group = groups.get(key);
    if (group) group.push(k);
    else groups.set(key, [k]);
  }
  const joined: WriteStep[] = [];
  const from: number[] = [];
  for (const [k, step] of steps.entries()) {
    const declared = joinables.get(step);
    const group = declared && groups.get(declared.key);
    if (!declared || !group || group.length === 1) {
      joined.push(step);
      from.push(k);
    } else if (group[0] === k) {
      for (const made of declared.join(group.map((member) => steps[member] as WriteStep))) {
        joined.push(made);
        from.push(k);
      }
    }
  }
  return { steps: joined, from };
}
