import { describe, expect, it } from 'vitest';
import { applyPercents, formatMicros, parseMicros, storedMicros } from '../../lib/money.js';

describe('money', () => {
  it('parses numbers and numeric strings exactly, into millionths', () => {
    expect(parseMicros(0.1)).toBe(100_000n);
    expect(parseMicros(19.99)).toBe(19_990_000n);
    expect(parseMicros(1e6)).toBe(1_000_000_000_000n);
    expect(parseMicros('10')).toBe(10_000_000n);
    expect(parseMicros('1.5e2')).toBe(150_000_000n);
    expect(parseMicros(1e-6)).toBe(1n);
    expect(parseMicros('2.5000000000')).toBe(2_500_000n);
    expect(parseMicros(-0)).toBe(0n);
  });

  it('refuses negatives, more than six decimals, non-numbers and infinities', () => {
    for (const value of [-1, '-0.5', '1.0000001', 1e-7, 'abc', '', '1,5', Infinity, NaN, '0x10', ' 1 2']) {
      expect(parseMicros(value as number | string), String(value)).toBeUndefined();
    }
  });

  it('formats with six fraction digits', () => {
    expect(formatMicros(19_990_000n)).toBe('19.990000');
    expect(formatMicros(0n)).toBe('0.000000');
    expect(formatMicros(1n)).toBe('0.000001');
  });

  it('applies percentages in order, compounding, rounding half up once', () => {
    expect(formatMicros(applyPercents(100_000_000n, ['20', '10']))).toBe('132.000000');
    expect(formatMicros(applyPercents(19_990_000n, ['20']))).toBe('23.988000');
    expect(formatMicros(applyPercents(1n, ['50']))).toBe('0.000002'); // 1.5 millionths rounds up
    expect(formatMicros(applyPercents(5_000_000n, []))).toBe('5.000000');
    expect(formatMicros(applyPercents(100_000_000n, ['5.5']))).toBe('105.500000');
  });

  it('reads back what the store wrote (a stock stored as a number, a take’s signed delta), and says a broken one', () => {
    expect(storedMicros('19.990000')).toBe(19_990_000n);
    expect(storedMicros(20)).toBe(20_000_000n);
    expect(storedMicros('-3.000000')).toBe(-3_000_000n);
    expect(() => storedMicros('nineteen')).toThrow('the stored decimal nineteen is not one');
  });
});
