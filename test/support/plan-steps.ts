/**
 * A write plan's steps as a reader names them (`Put CATEGORY#7 CATEGORY`), with each step's
 * condition when asked: what the unit tests of lib/<resource>/operations.ts plans compare.
 */
import type { WriteStep } from '../../lib/db/step.js';
import type { WritePlan } from '../../lib/db/write-plan.js';

interface StepBody {
  Item?: { pk: string; sk: string };
  Key?: { pk: string; sk: string };
  ConditionExpression?: string;
  ExpressionAttributeValues?: Record<string, unknown>;
}

const partsOf = (step: WriteStep): [string, StepBody] => {
  const [kind, body] = Object.entries(step.item).find(([, part]) => part !== undefined) as [string, StepBody];
  return [kind, body];
};

/** `<kind> <pk> <sk>` of each step, in order. */
export const stepsOf = (plan: WritePlan<unknown>): string[] =>
  plan.steps.map((step) => {
    const [kind, body] = partsOf(step);
    const key = body.Item ?? body.Key;
    return `${kind} ${key?.pk} ${key?.sk}`;
  });

/** The steps on items whose partition key starts with `prefix`. */
export const stepsOn = (plan: WritePlan<unknown>, prefix: string): string[] => stepsOf(plan).filter((step) => step.split(' ')[1]?.startsWith(prefix));

/** The condition of the step on `pk`/`sk`, and the values it compares with. */
export function conditionOn(plan: WritePlan<unknown>, pk: string, sk: string): { expression: string | undefined; values: Record<string, unknown> } | undefined {
  for (const step of plan.steps) {
    const [, body] = partsOf(step);
    const key = body.Item ?? body.Key;
    if (key?.pk === pk && key.sk === sk) return { expression: body.ConditionExpression, values: body.ExpressionAttributeValues ?? {} };
  }
  return undefined;
}

/** The version an update in place (a patch) requires of the item on `pk`/`sk`: its condition's last comparison. */
export function expectedVersionOf(plan: WritePlan<unknown>, pk: string, sk: string): unknown {
  const condition = conditionOn(plan, pk, sk);
  const placeholder = /= (:v\d+)$/.exec(condition?.expression ?? '')?.[1];
  return placeholder === undefined ? undefined : condition?.values[placeholder];
}

/** The attributes an update in place of the item on `pk`/`sk` sets (its `SET` clause), by name. */
export function attributesSetOn(plan: WritePlan<unknown>, pk: string, sk: string): string[] {
  for (const step of plan.steps) {
    const update = step.item.Update as (StepBody & { UpdateExpression?: string; ExpressionAttributeNames?: Record<string, string> }) | undefined;
    if (update?.Key?.pk !== pk || update.Key.sk !== sk) continue;
    const clause = /SET (.*?)(?: ADD |$)/.exec(update.UpdateExpression ?? '')?.[1] ?? '';
    return clause.split(', ').map((assignment) => update.ExpressionAttributeNames?.[assignment.split(' = ')[0] ?? ''] ?? assignment);
  }
  return [];
}
