/**
 * Field schemas shared by the resources, with messages that read well after the field name
 * ("email: must be a valid email address").
 */
import * as v from 'valibot';
import { parseMicros } from './money.js';

export const MAX_TEXT = 255;

/**
 * Field schemas that the OpenAPI converter would render wrongly (unions that transform) carry their
 * JSON Schema as metadata under this key; lib/openapi/document.ts puts it in their place.
 */
export const JSON_SCHEMA_KEY = 'x-json-schema';
const documented = <T extends v.GenericSchema>(schema: T, jsonSchema: Record<string, unknown>) =>
  v.pipe(schema, v.metadata({ [JSON_SCHEMA_KEY]: jsonSchema }));

/** Valid Unicode: a lone surrogate is not a character (and would make two texts collide when stored). */
const wellFormed = () => v.check<string, string>((s) => s.isWellFormed(), 'must be valid Unicode (no lone surrogate)');

// One-line texts hold no control character at all: C0, DEL, C1, and the line and paragraph separators.
const ONE_LINE_FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;
// Long texts may hold line feeds, carriage returns and tabs; nothing else of the control range.
const LONG_FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u2028\u2029]/;
// Zero-width spaces and joiners, other format characters and spaces: nothing a person can see.
const INVISIBLE_ONLY = /^[\p{Cf}\p{Z}\s]+$/u;

/** Valid Unicode, trimmed, at most `max` characters, and none of the `forbidden` characters. */
const trimmedText = (max: number, forbidden: RegExp, whatIsForbidden: string) =>
  v.pipe(
    v.string('must be a string'),
    wellFormed(),
    v.trim(),
    v.maxLength(max, `must be at most ${max} characters`),
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

/** A long text (a description), trimmed: line breaks and tabs allowed, no other control character. */
export const longText = (max: number) => trimmedText(max, LONG_FORBIDDEN, 'control characters other than line breaks and tabs');

/** A password: any characters of valid Unicode, compared exactly (never trimmed), within `min`–`max`. */
export const password = (min: number, max: number) =>
  v.pipe(
    v.string('must be a string'),
    wellFormed(),
    v.check((s) => [...s].length >= min, min > 1 ? `must be at least ${min} characters` : 'must not be empty'),
    v.check((s) => [...s].length <= max, `must be at most ${max} characters`),
  );

/** Ids are integers; PHP clients also send them as digit strings. */
export const integer = (min: number) =>
  documented(
    v.pipe(
      v.union([v.number(), v.pipe(v.string(), v.regex(/^\s*\d{1,16}\s*$/), v.transform(Number))], 'must be an integer'),
      v.integer('must be an integer'),
      v.safeInteger('must be an integer'),
      v.minValue(min, `must be at least ${min}`),
    ),
    { type: 'integer', minimum: min, maximum: Number.MAX_SAFE_INTEGER, description: 'a string of digits is accepted too' },
  );

/** An id that must exist among `known` (reference data). */
export const knownId = (known: ReadonlySet<number> | ReadonlyMap<number, unknown>, what: string) =>
  v.pipe(integer(1), v.check((id) => known.has(id), `is not a known ${what}`));

/** true/false/1/0/"1"/"0" (Thelia payloads send flags as 1). */
export const flag = () =>
  documented(
    v.pipe(
      v.union([v.boolean(), v.picklist([1, 0]), v.picklist(['1', '0'])], 'must be true, false, 1 or 0'),
      v.transform((value) => value === true || value === 1 || value === '1'),
    ),
    { enum: [true, false, 1, 0, '1', '0'] },
  );

/** A non-negative decimal, number or numeric string, with at most six fraction digits, in millionths. */
export const decimal = (max: bigint) =>
  documented(
    v.pipe(
      v.union([v.number(), v.string()], 'must be a number or a numeric string'),
      v.rawTransform(({ dataset, addIssue, NEVER }) => {
        const micros = parseMicros(dataset.value);
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
      pattern: '^\\d+(\\.\\d{1,6})?$',
      description: `a non-negative decimal with at most 6 fraction digits, up to ${max / 1_000_000n}.999999`,
    },
  );

/** A list order: one of `orders`, or the same `_reverse`; the first is the default. */
export const orderParam = <Order extends string>(orders: readonly [Order, ...Order[]]) => {
  const parsed = new Map<string, { by: Order; reverse: boolean }>(orders.flatMap((by) => [[by, { by, reverse: false }], [`${by}_reverse`, { by, reverse: true }]]));
  const values = [...parsed.keys()];
  return v.optional(
    v.pipe(
      v.picklist(values, `must be one of: ${values.join(', ')}`),
      v.transform((value) => parsed.get(value)!),
    ),
    orders[0],
  );
};
