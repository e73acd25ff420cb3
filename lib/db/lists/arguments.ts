/**
 * A list's loop arguments, declared once with its resource (docs/lists.md): each argument's value
 * schema and the filter it makes, the list's orders, and how a record becomes the search index's
 * document. From a declaration come the list's query schema (so its 400s and its OpenAPI
 * parameters), the filters a page is asked with, and what the search index keeps (list-plan.ts).
 */
import * as v from 'valibot';
import { fold, type FieldValue, type SearchDocument, type SearchFilter, type SearchOrder, type TextMode } from './query.js';

/** The parsed query: each argument's value, by its parameter's name. */
export type Arguments = Readonly<Record<string, unknown>>;

export interface ListArgument {
  /** The parameter's value, from the query string's text. */
  schema: v.GenericSchema<unknown, unknown>;
  /** The filters it makes, all to hold (none for a value that filters nothing, or an argument that only qualifies another). */
  filter?: (value: never, all: Arguments) => SearchFilter | readonly SearchFilter[] | undefined;
}

type Described = v.GenericSchema<unknown, unknown>;
const described = (schema: Described, description: string): Described => v.pipe(schema, v.description(description));

/** The field is one of the ids given (`category=3,5`). */
export const oneOf = (field: string, ids: Described, description: string): ListArgument => ({
  schema: described(ids, description),
  filter: (values: readonly FieldValue[]) => ({ kind: 'in', field, values }),
});

/** The field is none of the ids given. */
export const noneOf = (field: string, ids: Described, description: string): ListArgument => ({
  schema: described(ids, description),
  filter: (values: readonly FieldValue[]) => ({ kind: 'in', field, values, not: true }),
});

/** The field is at least (`min`) or at most (`max`) the value, inclusive. */
export const bound = (field: string, side: 'min' | 'max', value: Described, description: string): ListArgument => ({
  schema: described(value, description),
  filter: (given: FieldValue) => ({ kind: 'range', field, [side]: given }),
});

/** A flag: `1` (set) or `0` (not set). */
export const flagIs = (field: string, description: string): ListArgument => ({
  schema: described(v.picklist(['1', '0'], 'must be 1 or 0'), description),
  filter: (value: string) => ({ kind: 'in', field, values: [Number(value)] }),
});

/** Every one of the ids given is among the record's (a text of its ids, each a word). */
export const allOf = (field: string, ids: Described, description: string): ListArgument => ({
  schema: described(ids, description),
  filter: (values: readonly number[]) => values.map((id) => ({ kind: 'text', fields: [field], mode: 'any_word', term: String(id) }) as const),
});

/** `1`, `0` or `*` (both, the default: a back office sees everything). */
export const visibility = (field: string): ListArgument => ({
  schema: v.optional(v.pipe(v.picklist(['1', '0', '*'], 'must be 1, 0 or *'), v.description('1: visible only, 0: hidden only, *: both (the default)')), '*'),
  filter: (value: string) => (value === '*' ? undefined : { kind: 'in', field, values: [Number(value)] }),
});

// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it finds.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** A text a list compares: as stored texts are (valid Unicode, no control character: FTS5 would choke on a NUL). */
const term = () =>
  v.pipe(
    v.string(),
    v.trim(),
    v.nonEmpty('must not be empty'),
    v.check((text) => !/\p{Cs}/u.test(text), 'must be valid Unicode'),
    v.check((text) => !CONTROL.test(text), 'must not contain control characters'),
  );

/** A text searched for within others: it must name something once folded (a lone accent or a zero-width space would match every record). */
const searchTerm = () =>
  v.pipe(
    term(),
    v.check((text) => /[\p{L}\p{N}]/u.test(fold(text)), 'must hold a letter or a digit'),
  );

/** The text of a field compared whole, case- and accent-insensitively (`strict_sentence`). */
export const textIs = (field: string, description: string): ListArgument => ({
  schema: described(term(), description),
  filter: (value: string) => ({ kind: 'text', fields: [field], mode: 'equals', term: fold(value) }),
});

/** The text of a field (in the list's language when localized) contains the value, case- and accent-insensitively. */
export const contains = (field: string, description: string): ListArgument => ({
  schema: described(searchTerm(), description),
  filter: (value: string) => ({ kind: 'text', fields: [field], mode: 'contains', term: fold(value) }),
});

/** On or after an ISO 8601 instant (dates are kept as `Date#toISOString` writes them, which sort as they compare). */
export const since = (field: string, instant: Described, description: string): ListArgument => ({
  schema: described(instant, description),
  filter: (value: string) => ({ kind: 'range', field, min: value }),
});

const SEARCH_MODES = { strict_sentence: 'equals', sentence: 'contains', any_word: 'any_word' } as const satisfies Record<string, TextMode>;

/**
 * Thelia's `search_term`, `search_in` (the fields, comma-separated: `in`, `defaults` when absent)
 * and `search_mode` (`strict_sentence`, the default; `sentence`; `any_word`).
 */
export function search(fields: readonly [string, ...string[]], defaults: readonly string[]): Record<'search_term' | 'search_in' | 'search_mode', ListArgument> {
  const list: Described = v.pipe(
    v.string(),
    v.transform((text) => text.split(',').map((name) => name.trim())),
    v.check((names) => names.every((name) => fields.includes(name)), `must be a comma-separated list of: ${fields.join(', ')}`),
    v.description(`the fields searched, comma-separated: any of ${fields.join(', ')} (default ${defaults.join(',')})`),
  );
  const modes = Object.keys(SEARCH_MODES) as (keyof typeof SEARCH_MODES)[];
  return {
    search_term: {
      schema: described(searchTerm(), 'a text searched for case- and accent-insensitively in the `search_in` fields, as `search_mode` says'),
      filter: (value: string, all) => ({
        kind: 'text',
        fields: (all.search_in as string[] | undefined) ?? defaults,
        mode: SEARCH_MODES[(all.search_mode as keyof typeof SEARCH_MODES | undefined) ?? 'strict_sentence'],
        term: fold(value),
      }),
    },
    search_in: { schema: list },
    search_mode: {
      schema: v.pipe(
        v.picklist(modes, `must be one of: ${modes.join(', ')}`),
        v.description('strict_sentence (the default): the whole field is the term; sentence: the field contains it; any_word: the field holds one of its words'),
      ),
    },
  };
}

/** An order and the same one reversed (`alpha`, `alpha_reverse`). */
export const both = <N extends string>(name: N, field: string, text = false): Record<N | `${N}_reverse`, SearchOrder> =>
  ({ [name]: { field, text, reverse: false }, [`${name}_reverse`]: { field, text, reverse: true } }) as Record<N | `${N}_reverse`, SearchOrder>;

export interface ListDeclaration<R> {
  /** The search index's name for the kind (`products`), and the change feed's (`product`). */
  kind: string;
  resource: string;
  arguments: Readonly<Record<string, ListArgument>>;
  orders: Readonly<Record<string, SearchOrder>>;
  /** The order when none is asked for. */
  defaultOrder: (args: Arguments) => string;
  /** What the search index keeps of a record: the fields its arguments and orders read, nothing else. */
  document: (record: R) => SearchDocument;
}

export const defineList = <R>(declaration: ListDeclaration<R>): ListDeclaration<R> => declaration;

/** The query schema of a list: its arguments, each optional, and its order; `extra` adds what every list of it takes (`lang`). */
export function listQuerySchema<R, E extends v.ObjectEntries>(list: ListDeclaration<R>, extra: E) {
  const names = Object.keys(list.orders);
  return v.object({
    ...extra,
    order: v.optional(v.pipe(v.picklist(names, `must be one of: ${names.join(', ')}`), v.description(`the order of the rows: one of ${names.join(', ')}`))),
    ...Object.fromEntries(Object.entries(list.arguments).map(([name, argument]) => [name, v.optional(argument.schema)])),
  });
}

/** The filters a list's arguments make, in the order they are declared. */
export const filtersOf = <R>(list: ListDeclaration<R>, args: Arguments): SearchFilter[] =>
  Object.entries(list.arguments).flatMap(([name, argument]) => {
    const value = args[name];
    return value === undefined || !argument.filter ? [] : [argument.filter(value as never, args) ?? []].flat();
  });

/** The arguments given that filter something (`visible=*` does not), by name. */
export const filteringArguments = <R>(list: ListDeclaration<R>, args: Arguments): string[] =>
  Object.entries(list.arguments).flatMap(([name, argument]) => (args[name] !== undefined && [argument.filter?.(args[name] as never, args) ?? []].flat().length ? [name] : []));
