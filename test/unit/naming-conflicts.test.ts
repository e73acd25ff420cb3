/**
 * `namingConflicts` (lib/db/transactions.ts): a step's Conflict names its field as the request
 * names it, and every other failure, and every step that explains none, stays as it is.
 */
import { describe, expect, it } from 'vitest';
import { Conflict, WriteConflict } from '../../lib/db/errors.js';
import { joinSteps } from '../../lib/db/joined-steps.js';
import { addStep, shardedCount } from '../../lib/db/sharded-count.js';
import { ABSENT, namingConflicts, put, raced } from '../../lib/db/transactions.js';

const taken = () => new Conflict('a product sale element already has this ref', 'ref');
const entryField = (field: string) => `pse[2].${field === 'ref' ? 'reference' : field}`;

describe('a step’s conflicts named as the request names them', () => {
  it('renames the field a Conflict names, keeping its message', () => {
    const [step] = namingConflicts([put({ pk: 'PSE_REF#A', sk: 'LOCK' }, ABSENT, taken)], entryField);
    const error = step?.onConditionFailed?.(undefined);
    expect(error).toBeInstanceOf(Conflict);
    expect(error).toMatchObject({ field: 'pse[2].reference', message: 'a product sale element already has this ref' });
  });

  it('leaves other failures, a Conflict naming no field, and steps that explain nothing as they are', () => {
    const unnamed = () => new Conflict('taken');
    const steps = [put({ pk: 'A', sk: 'A' }, ABSENT, raced), put({ pk: 'B', sk: 'B' }, ABSENT, unnamed), put({ pk: 'C', sk: 'C' })];
    const [racedStep, unnamedStep, silent] = namingConflicts(steps, entryField);
    expect(racedStep?.onConditionFailed?.(undefined)).toBeInstanceOf(WriteConflict);
    expect(unnamedStep?.onConditionFailed?.(undefined)).toMatchObject({ field: undefined, message: 'taken' });
    expect(silent).toBe(steps[2]);
    expect(namingConflicts(steps, entryField).map((step) => step.item)).toEqual(steps.map((step) => step.item));
  });

  it('leaves a joinable step itself, so that it still joins: two additions to one count shard summed', () => {
    // A bounded count (of one shard): each addition explains its failure.
    const count = shardedCount('COUNT#N', 1);
    const full = () => new Conflict('too many', 'ref');
    const steps = [addStep(count, 1, 2, { atMost: { max: 10, full } }), addStep(count, 5, 3, { atMost: { max: 10, full } })];
    const named = namingConflicts(steps, entryField);
    expect(named).toEqual(steps);
    expect(named[0]).toBe(steps[0]);
    const joined = joinSteps(named);
    expect(joined.steps).toHaveLength(1);
    expect(joined.steps[0]?.item.Update?.ExpressionAttributeValues?.[':delta']).toBe(5);
  });
});
