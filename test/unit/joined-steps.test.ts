/**
 * Steps one transaction writes as fewer (lib/db/joined-steps.ts): additions to one count shard
 * summed, the pending markers of one partition joined into one naming every change, each written
 * step traced back to the step it came from.
 */
import { describe, expect, it } from 'vitest';
import { CHANGES_A_MARKER, changeSteps, changesOf, pendingPartition, StoredMarker } from '../../lib/db/changes.js';
import { joinSteps } from '../../lib/db/joined-steps.js';
import { addStep, shardedCount } from '../../lib/db/sharded-count.js';
import type { WriteStep } from '../../lib/db/step.js';
import { put } from '../../lib/db/transactions.js';
import { fixedStamp } from '../support/stamp.js';

const itemOf = (step: WriteStep) => (step.item.Put?.Item ?? step.item.Update?.Key) as { pk: string; sk: string };
const isMarker = (step: WriteStep) => itemOf(step).pk.startsWith('CHANGES#PENDING#');

/** The steps recording a product's creation at version 1, `at` ms after the fixed instant. */
const created = (id: number, at = 0) => changeSteps(fixedStamp(new Date(Date.parse('2026-11-27T12:00:00.000Z') + at).toISOString()), 'product', id, 'created', 1, []);

/** Product ids whose markers all fall in one partition, `count` of them. */
function idsInOnePartition(count: number): number[] {
  const partition = pendingPartition('product', 1);
  const ids: number[] = [];
  for (let id = 1; ids.length < count; id++) if (pendingPartition('product', id) === partition) ids.push(id);
  return ids;
}

describe('joining the steps of one transaction', () => {
  it('sums two additions to one count shard into one step at the place of the first, and keeps other steps as they are', () => {
    const count = shardedCount('COUNT#T', 4);
    const plain = put({ pk: 'P#1', sk: 'P' });
    // Records 1 and 5 share shard 1; record 2 has its own.
    const steps = [addStep(count, 1, 2), plain, addStep(count, 2, 1), addStep(count, 5, 3)];
    const joined = joinSteps(steps);
    expect(joined.steps).toHaveLength(3);
    expect(joined.from).toEqual([0, 1, 2]);
    expect(joined.steps[0]?.item.Update?.ExpressionAttributeValues?.[':delta']).toBe(5);
    expect(joined.steps[1]).toBe(plain);
    expect(joined.steps[2]).toBe(steps[2]);
  });

  it("writes the markers one transaction records in one partition as one, keyed as the oldest, naming every change, the others' partitions apart", () => {
    const [a, b, c] = idsInOnePartition(3) as [number, number, number];
    const elsewhere = [...Array(50).keys()].map((n) => n + 1).find((id) => pendingPartition('product', id) !== pendingPartition('product', a)) as number;
    const steps = [...created(b, 5), ...created(a, 1), ...created(elsewhere, 0), ...created(c, 9)];
    const joined = joinSteps(steps);
    const markers = joined.steps.filter(isMarker).map((step) => StoredMarker.parse(step.item.Put?.Item ?? {}));
    expect(markers).toHaveLength(2);
    const shared = markers.find((marker) => marker.pk === pendingPartition('product', a));
    // Keyed as the oldest change (a's, 1 ms in), naming the three in the order of their times.
    expect(shared?.sk).toBe(itemOf(created(a, 1)[1] as WriteStep).sk);
    expect(changesOf(shared!).map((pending) => pending.change.pk)).toEqual([a, b, c].map((id) => `CHANGE#product#${id}`));
    // The change items stay one each; the joined marker is at the place of the first marker (b's), traced to it.
    expect(joined.steps.filter((step) => !isMarker(step))).toHaveLength(4);
    const at = joined.steps.findIndex((step) => isMarker(step) && itemOf(step).pk === shared?.pk);
    expect(joined.from[at]).toBe(1);
  });

  it(`splits the markers of one partition past ${CHANGES_A_MARKER} changes, so that the placer can place any marker in one feed item`, () => {
    const ids = idsInOnePartition(CHANGES_A_MARKER + 3);
    const joined = joinSteps(ids.flatMap((id, n) => created(id, n)));
    const markers = joined.steps.filter(isMarker).map((step) => StoredMarker.parse(step.item.Put?.Item ?? {}));
    expect(markers.map((marker) => changesOf(marker).length)).toEqual([CHANGES_A_MARKER, 3]);
    expect(markers.flatMap(changesOf).map((pending) => pending.change.pk)).toEqual(ids.map((id) => `CHANGE#product#${id}`));
  });
});
