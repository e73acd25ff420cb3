/**
 * lib/db/write-plan.ts: what a plan's transaction holds under each way of sending it (alone,
 * recorded under an Idempotency-Key, marked as a batch row), and a write planned once. The sending
 * itself (`commit`, `commitTogether`) runs on DynamoDB Local: test/batch*.test.ts, test/idempotency.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { put } from '../../../lib/db/transactions.js';
import { mapWrite, plan, planOnce, recordedPlan, stepsOf, Write } from '../../../lib/db/write-plan.js';

const record = put({ pk: 'THING#1', sk: 'THING' });
const recorder = (tag: string) => (answer: unknown) => put({ pk: tag, sk: JSON.stringify(answer ?? null) });
const keys = (steps: ReturnType<typeof stepsOf>) => steps.map((step) => `${step.item.Put?.Item?.pk} ${step.item.Put?.Item?.sk}`);

describe('a write plan', () => {
  it('is sent alone as its own steps', () => {
    expect(keys(stepsOf(recordedPlan([record], { ID: 1 })))).toEqual(['THING#1 THING']);
  });

  it('records its answer under an Idempotency-Key only when it is a create’s (an update’s retry finds the record as it is then)', () => {
    expect(keys(stepsOf(recordedPlan([record], { ID: 1 }), { answer: recorder('ANSWER') }))).toEqual(['THING#1 THING', 'ANSWER {"ID":1}']);
    expect(keys(stepsOf(plan([record], { ID: 1 }), { answer: recorder('ANSWER') }))).toEqual(['THING#1 THING']);
  });

  it('is marked as a batch row’s in any case, the marker holding a create’s answer only', () => {
    expect(keys(stepsOf(recordedPlan([record], { ID: 1 }), { marker: recorder('MARKER') }))).toEqual(['THING#1 THING', 'MARKER {"ID":1}']);
    expect(keys(stepsOf(plan([record], undefined), { marker: recorder('MARKER') }))).toEqual(['THING#1 THING', 'MARKER null']);
  });
});

describe('a write', () => {
  it('is planned again at each attempt, unless planned once (an id allocated once)', async () => {
    let reads = 0;
    const planning = async () => plan([record], ++reads);
    const again = new Write(planning);
    expect([(await again.plan()).answer, (await again.plan()).answer]).toEqual([1, 2]);
    const once = planOnce(planning);
    expect([(await once.plan()).answer, (await once.plan()).answer]).toEqual([3, 3]);
  });

  it('answers what `mapWrite` makes of its answer, with the same steps and recording', async () => {
    const mapped = await mapWrite(
      planOnce(async () => recordedPlan([record], { ID: 7 })),
      (row) => ({ status: 201, id: row.ID }),
    ).plan();
    expect(mapped).toEqual({ steps: [record], answer: { status: 201, id: 7 }, answerRecorded: true });
  });
});
