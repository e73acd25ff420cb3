/**
 * A sale element entry's stock fields as the routes read them (lib/pse/schema.ts): `quantity` and
 * `quantity_delta` take the same plain decimals, the delta a minus before it, and a refusal names
 * the field.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { PseUpdate } from '../../lib/pse/schema.js';

const parsed = (entry: Record<string, unknown>) => v.safeParse(PseUpdate, { pse: [entry] });
const refusedFields = (entry: Record<string, unknown>) => {
  const result = parsed(entry);
  return result.success ? [] : result.issues.map((issue) => v.getDotPath(issue));
};

describe('a stock change (quantity_delta)', () => {
  it('reads a signed decimal into millionths, from a number or its text', () => {
    const deltas = ['-3', '5', '0.000001', '-0.5', -2, 1.25].map((delta) => {
      const result = parsed({ quantity_delta: delta });
      return result.success ? result.output.pse[0]?.quantity_delta : undefined;
    });
    expect(deltas).toEqual([-3_000_000n, 5_000_000n, 1n, -500_000n, -2_000_000n, 1_250_000n]);
  });

  it('refuses what a quantity refuses, a plus and spaces among them, naming the field', () => {
    for (const delta of [' 5', '5 ', '- 5', '+5', '1e3', '0.0000001', '--5', '-', '', '5,5', 'NaN', true, null]) {
      expect(refusedFields({ quantity_delta: delta }), JSON.stringify(delta)).toEqual(['pse.0.quantity_delta']);
    }
    for (const quantity of [' 5', '+5', '-0', '1e3']) {
      expect(refusedFields({ quantity }), JSON.stringify(quantity)).toEqual(['pse.0.quantity']);
    }
  });

  it('is sent instead of a quantity, not beside it', () => {
    expect(refusedFields({ quantity: '3', quantity_delta: '5' })).toEqual(['pse.0.quantity_delta']);
  });
});
