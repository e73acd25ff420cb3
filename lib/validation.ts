/**
 * Field schemas shared by the resources, with messages that read well after the field name
 * ("email: must be a valid email address").
 */
import { present } from './present.js';
import * as v from 'valibot';
import { hasDefaultIgnorable } from './identity.js';
import { parseMicros, PLAIN_DECIMAL } from './money.js';

export const MAX_TEXT = 255;

/**
 * Field schemas that the OpenAPI converter would render wrongly (unions that transform) carry their
 * JSON Schema as metadata under this key; lib/openapi/document.ts puts it in their place.
 */
export const JSON_SCHEMA_KEY = 'x-json-schema';
const documented = <T extends v.GenericSchema>(schema: T, jsonSchema: Record<string, unknown>) => v.pipe(schema, v.metadata({ [JSON_SCHEMA_KEY]: jsonSchema }));

/** Valid Unicode: a lone surrogate is not a character (and would make two texts collide when stored). */
const wellFormed = () => v.check<string, string>((s) => s.isWellFormed(), 'must be valid Unicode (no lone surrogate)');

// One-line texts hold no control character at all: C0, DEL, C1, and the line and paragraph separators.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it finds.
const ONE_LINE_FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;
// Long texts may hold line feeds, carriage returns and tabs; nothing else of the control range.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it finds.
const LONG_FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u2028\u2029]/;
// Zero-width spaces and joiners, other format characters and spaces: nothing a person can see.
const INVISIBLE_ONLY = /^[\p{Cf}\p{Z}\s]+$/u;

/** Lengths count characters (code points), not UTF-16 units: 255 emoji are 255 characters. */
const characters = (s: string): number => {
  let count = 0;
  for (const _ of s) count++;
  return count;
};
const atMost = (max: number) => v.check<string, string>((s) => s.length <= max || characters(s) <= max, `must be at most ${max} characters`);

/** Valid Unicode, trimmed, in NFC (what was sent in NFD is the same text), at most `max` characters, none of the `forbidden` ones. */
const trimmedText = (max: number, forbidden: RegExp, whatIsForbidden: string) =>
  v.pipe(
    v.string('must be a string'),
    wellFormed(),
    v.trim(),
    v.transform((s) => s.normalize('NFC')),
    atMost(max),
    v.check((s) => !forbidden.test(s), `must not contain ${whatIsForbidden}`),
  );

/** A one-line text (a name, an address, a ref), trimmed, of at most `max` characters; it may be empty. */
export const text = (max = MAX_TEXT) =>
  v.pipe(
    trimmedText(max, ONE_LINE_FORBIDDEN, 'control characters or line breaks'),
    v.check((s) => !INVISIBLE_ONLY.test(s), 'must not be made only of invisible characters'),
  );

/** A one-line text that must not be empty. */
export const requiredText = (max = MAX_TEXT) => v.pipe(text(max), v.nonEmpty('must not be empty'));

/**
 * A text that must be unique (a ref, an email): required, and without default-ignorable characters,
 * which would make it look like another (uniqueness compares in lib/identity.ts's form).
 */
export const identifier = (max = MAX_TEXT) =>
  v.pipe(
    requiredText(max),
    v.check((s) => !hasDefaultIgnorable(s), 'must not contain invisible characters (zero-width, soft hyphen, BOM, variation selectors...)'),
  );

/** A long text (a description), trimmed: line breaks and tabs allowed, no other control character. */
export const longText = (max: number) => trimmedText(max, LONG_FORBIDDEN, 'control characters other than line breaks and tabs');

/** A password: any characters of valid Unicode, compared exactly (never trimmed), within `min`–`max`. */
export const password = (min: number, max: number) =>
  v.pipe(
    v.string('must be a string'),
    wellFormed(),
    v.check((s) => characters(s) >= min, min > 1 ? `must be at least ${min} characters` : 'must not be empty'),
    atMost(max),
  );

/**
 * A JSON number whose source text is not what JavaScript prints for the double it parses to: more
 * digits than a double holds (`19.990000000000000001`), trailing zeros (`1.50`), an exponent
 * (`1e3`). The body parser keeps such a number as the text the client wrote (lib/http/exact-numbers.ts),
 * so that a field takes the decimal that was written, or refuses it: never a float's approximation.
 */
export class JsonNumberText {
  constructor(readonly source: string) {}
}

/** The integer a JSON number's text denotes exactly (`3.0`, `1e2`), when a double holds it exactly. */
function exactInteger(source: string): number | undefined {
  const micros = source.startsWith('-') ? undefined : parseMicros(source);
  if (micros === undefined || micros % 1_000_000n !== 0n) return undefined;
  const value = micros / 1_000_000n;
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : undefined;
}

/** A number kept as its text becomes the integer it denotes exactly; anything else passes as it is. */
const exactIntegers = () => v.transform((value: unknown) => (value instanceof JsonNumberText ? (exactInteger(value.source) ?? value) : value));

/** Ids are integers; PHP clients also send them as digit strings. */
export const integer = (min: number) =>
  documented(
    v.pipe(
      v.unknown(),
      exactIntegers(),
      v.union([v.number(), v.pipe(v.string(), v.regex(/^\s*\d{1,16}\s*$/), v.transform(Number))], 'must be an integer'),
      v.integer('must be an integer'),
      v.safeInteger('must be an integer'),
      v.minValue(min, `must be at least ${min}`),
    ),
    { type: 'integer', minimum: min, maximum: Number.MAX_SAFE_INTEGER, description: 'a string of digits is accepted too' },
  );

/** An id that must exist among `known` (reference data). */
export const knownId = (known: ReadonlySet<number> | ReadonlyMap<number, unknown>, what: string) =>
  v.pipe(
    integer(1),
    v.check((id) => known.has(id), `is not a known ${what}`),
  );

/** true/false/1/0/"1"/"0" (Thelia payloads send flags as 1). */
export const flag = () =>
  documented(
    v.pipe(
      v.unknown(),
      exactIntegers(),
      v.union([v.boolean(), v.picklist([1, 0]), v.picklist(['1', '0'])], 'must be true, false, 1 or 0'),
      v.transform((value) => value === true || value === 1 || value === '1'),
    ),
    { enum: [true, false, 1, 0, '1', '0'] },
  );

/**
 * A non-negative decimal with at most six fraction digits, in millionths: a JSON number, taken as
 * the client wrote it (its source text), or a string in plain decimal notation (docs/api.md).
 */
export const decimal = (max: bigint) =>
  documented(
    v.pipe(
      v.union([v.number(), v.string(), v.instance(JsonNumberText)], 'must be a number or a numeric string'),
      v.rawTransform(({ dataset, addIssue, NEVER }) => {
        const value = dataset.value;
        if (typeof value === 'string' && !PLAIN_DECIMAL.test(value)) {
          addIssue({ message: 'must be a plain decimal (digits, then at most 6 decimals after a dot: no sign, exponent or space)' });
          return NEVER;
        }
        const micros = parseMicros(value instanceof JsonNumberText ? value.source : value);
        if (micros === undefined) {
          addIssue({ message: 'must be a non-negative number with at most 6 decimals' });
          return NEVER;
        }
        if (micros > max) {
          addIssue({ message: 'is too large' });
          return NEVER;
        }
        return micros;
      }),
    ),
    {
      type: ['number', 'string'],
      pattern: PLAIN_DECIMAL.source,
      description:
        `a non-negative decimal with at most 6 fraction digits, up to ${max / 1_000_000n}.999999: a JSON number, taken exactly as written ` +
        '(its text, not a float), or a string in plain decimal notation',
    },
  );

/** A list order: one of `orders`, or the same `_reverse`; the first is the default. */
export const orderParam = <Order extends string>(orders: readonly [Order, ...Order[]]) => {
  const parsed = new Map<string, { by: Order; reverse: boolean }>(
    orders.flatMap((by) => [
      [by, { by, reverse: false }],
      [`${by}_reverse`, { by, reverse: true }],
    ]),
  );
  const values = [...parsed.keys()];
  return v.optional(
    v.pipe(
      v.picklist(values, `must be one of: ${values.join(', ')}`),
      v.transform((value) => present(parsed.get(value), `the order ${value}`)),
    ),
    orders[0],
  );
};

/** Ids, comma-separated, as Thelia's loops take them (`category=3,5`). */
export const idList = () =>
  documented(
    v.pipe(
      v.string(),
      v.regex(/^\s*\d{1,15}\s*(,\s*\d{1,15}\s*)*$/, 'must be ids separated by commas (3,5)'),
      v.transform((text) => text.split(',').map(Number)),
    ),
    { type: 'string', pattern: '^\\d+(,\\d+)*$', description: 'ids separated by commas' },
  );

// An ISO 8601 date, or instant with its offset (`+` arrives as a space when a client leaves it unencoded).
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Whether an ISO 8601 text's date is one of the calendar's, and it stays within 0000–9999 once its offset is applied (Date.parse takes 2026-02-30 as 2 March). */
function isCalendarDate(text: string): boolean {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return false;
  const instant = new Date(/T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text) ? `${text}Z` : text);
  return instant.getUTCFullYear() >= 0 && instant.getUTCFullYear() <= 9999;
}

/** An ISO 8601 instant (a date alone is its midnight, UTC), as `Date#toISOString` writes it: dates stored so compare as texts. */
export const instant = () =>
  documented(
    v.pipe(
      v.string(),
      v.transform((text) => text.trim().replace(/ (\d{2}:?\d{2})$/, '+$1')),
      v.check((text) => ISO_INSTANT.test(text) && !Number.isNaN(Date.parse(text)), 'must be an ISO 8601 date or instant (2026-01-31 or 2026-01-31T08:00:00Z)'),
      v.check(isCalendarDate, 'must be a date of the calendar (2026-02-30 is not), in the years 0000 to 9999 once its offset is applied'),
      v.transform((text) => new Date(/T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text) ? `${text}Z` : text).toISOString()),
    ),
    { type: 'string', format: 'date-time', description: 'an ISO 8601 instant (or a date: its midnight, UTC)' },
  );
