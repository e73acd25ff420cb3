/**
 * lib/db/write-plan.ts: what a plan's transaction holds under each way of sending it (alone,
 * recorded under an Idempotency-Key, marked as a batch row), a write planned once, and the stamp each
 * planning gets (who, when, new ids) and what a plan makes of it. The sending
 * itself (`commit`, `commitTogether`) runs on DynamoDB Local: test/batch*.test.ts, test/idempotency.test.ts.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { newBrand, updateBrandPlan } from '../../../lib/brands/operations.js';
import { BrandUpdate } from '../../../lib/brands/schema.js';
import type { WriteStamp } from '../../../lib/db/stamp.js';
import { put } from '../../../lib/db/transactions.js';
import { mapWrite, plan, planOnce, recordedPlan, stepsOf, Write } from '../../../lib/db/write-plan.js';
import { fixedStamp } from '../../support/stamp.js';

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
    expect([(await again.plan(fixedStamp())).answer, (await again.plan(fixedStamp())).answer]).toEqual([1, 2]);
    const once = planOnce(planning);
    expect([(await once.plan(fixedStamp())).answer, (await once.plan(fixedStamp())).answer]).toEqual([3, 3]);
  });

  it('answers what `mapWrite` makes of its answer, with the same steps and recording', async () => {
    const mapped = await mapWrite(
      planOnce(async () => recordedPlan([record], { ID: 7 })),
      (row) => ({ status: 201, id: row.ID }),
    ).plan(fixedStamp());
    expect(mapped).toEqual({ steps: [record], answer: { status: 201, id: 7 }, answerRecorded: true });
  });
});

describe('a write stamped by its executor', () => {
  const changeItems = (steps: ReturnType<typeof stepsOf>) =>
    steps.flatMap((step) => {
      const item = step.item.Put?.Item;
      return item && String(item.pk).startsWith('CHANGE#') ? [item] : [];
    });

  it("dates the record and its change by the stamp's one clock read, names the stamp's actor, and takes the stamp's ids", () => {
    const stamp = fixedStamp('2026-11-29T08:30:00.123Z', { apiKey: 'KEY42', requestId: 'req-7' });
    const current = newBrand({ id: 4, visible: true, position: 1, i18n: { en_US: { title: 'Acme' } }, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' });
    const planned = updateBrandPlan(v.parse(BrandUpdate, { id: 4, locale: 'en_US', title: 'Acme & Co' }), undefined, undefined, { current, stamp });
    expect(planned.answer).toMatchObject({ UPDATE_DATE: '2026-11-29T08:30:00.123Z' });
    expect(changeItems(stepsOf(planned))).toEqual([expect.objectContaining({ date: '2026-11-29T08:30:00.123Z', apiKey: 'KEY42', requestId: 'req-7', changeId: 'change-1' })]);
  });

  it('hands each planning its stamp: a write planned again gets a new one, a write planned once keeps its first', async () => {
    const seen: string[] = [];
    const planning = async (stamp: WriteStamp) => plan([record], seen.push(stamp.now));
    const again = new Write(planning);
    await again.plan(fixedStamp('2026-11-29T00:00:00.001Z'));
    await again.plan(fixedStamp('2026-11-29T00:00:00.002Z'));
    const once = planOnce(planning);
    await once.plan(fixedStamp('2026-11-29T00:00:00.003Z'));
    await once.plan(fixedStamp('2026-11-29T00:00:00.004Z'));
    expect(seen).toEqual(['2026-11-29T00:00:00.001Z', '2026-11-29T00:00:00.002Z', '2026-11-29T00:00:00.003Z']);
  });
});
