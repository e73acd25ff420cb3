/**
 * Exact decimals for prices and weights: values are kept as integer millionths (BigInt), stored and
 * answered as strings with six fraction digits ("19.990000"), never as floats.
 */
export const SCALE = 1_000_000n;

/** A non-negative number in JSON's notation (exponent allowed), as its source text or JavaScript prints a number. */
const DECIMAL = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
/** The plain decimal notation of prices and weights sent as strings (docs/api.md): no sign, exponent or space. */
export const PLAIN_DECIMAL = /^[0-9]+(\.[0-9]{1,6})?$/;

/**
 * Parses a non-negative decimal (a number, or the text of a JSON number) into millionths, exactly.
 * Returns undefined when it is not a number, is negative, or has more than six fraction digits.
 */
export function parseMicros(value: number | string): bigint | undefined {
  if (typeof value === 'number' && !Number.isFinite(value)) return undefined;
  // A JS number prints as the shortest decimal that reads back as itself: what the client wrote
  // when its source text was that (the body parser keeps any other source text: exact-numbers.ts).
  const text = typeof value === 'number' ? String(value) : value;
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, whole = '0', fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 40) return undefined;
  let digits = whole + fraction;
  let fractionDigits = fraction.length - exponent;
  if (fractionDigits < 0) {
    digits += '0'.repeat(-fractionDigits);
    fractionDigits = 0;
  }
  // Trailing zeros beyond the sixth fraction digit carry no precision.
  while (fractionDigits > 6 && digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    fractionDigits--;
  }
  if (fractionDigits > 6) return undefined;
  return BigInt(digits) * 10n ** BigInt(6 - fractionDigits);
}

/**
 * A decimal the store wrote itself (a price, a stock; a take's signed delta), in millionths: one that
 * does not parse is a broken record, thrown as such rather than carried on.
 */
export function storedMicros(stored: string | number): bigint {
  const text = String(stored);
  const negative = text.startsWith('-');
  const micros = parseMicros(negative ? text.slice(1) : text);
  if (micros === undefined) throw new Error(`the stored decimal ${text} is not one`);
  return negative ? -micros : micros;
}

export function formatMicros(micros: bigint): string {
  const sign = micros < 0n ? '-' : '';
  const abs = micros < 0n ? -micros : micros;
  return `${sign}${abs / SCALE}.${(abs % SCALE).toString().padStart(6, '0')}`;
}

/**
 * Applies percentage taxes in order, each on the result of the previous one (compounding), and
 * rounds half up to the millionth once, at the end.
 */
export function applyPercents(micros: bigint, percents: readonly string[]): bigint {
  let numerator = micros;
  let denominator = 1n;
  for (const percent of percents) {
    const rate = parseMicros(percent);
    if (rate === undefined) throw new Error(`bad tax rate ${percent}`);
    // × (1 + rate/100), rate in millionths of a percent
    numerator *= 100n * SCALE + rate;
    denominator *= 100n * SCALE;
  }
  return (numerator * 2n + denominator) / (2n * denominator);
}

/**
 * The untaxed price whose taxed price (applyPercents) is `micros`: the taxes taken off in one division,
 * rounded half up to the millionth (docs/api.md: a price sent with its taxes).
 */
export function removePercents(micros: bigint, percents: readonly string[]): bigint {
  let numerator = micros;
  let denominator = 1n;
  for (const percent of percents) {
    const rate = parseMicros(percent);
    if (rate === undefined) throw new Error(`bad tax rate ${percent}`);
    numerator *= 100n * SCALE;
    denominator *= 100n * SCALE + rate;
  }
  return (numerator * 2n + denominator) / (2n * denominator);
}

/** `micros` times a decimal `rate` (a currency's), rounded half up to the millionth. */
export function timesRate(micros: bigint, rate: string): bigint {
  const factor = parseMicros(rate);
  if (factor === undefined) throw new Error(`bad rate ${rate}`);
  return (micros * factor * 2n + SCALE) / (2n * SCALE);
}
