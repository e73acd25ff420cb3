/**
 * The search index's query model, in neutral terms (docs/lists.md): what a list asks an index for
 * (its kind, filters, order, locale and page) and what a document holds. Every engine answers the
 * same question the same way; `matches` and `compareDocuments` say what that way is, in code, for
 * the lists a key serves (a filter that names one record) and for the engines' tests.
 */
import { compareKeys } from '../keys.js';
import type { Position } from '../page.js';

/**
 * Texts are compared case- and accent-insensitively: decomposed, marks dropped, case-folded (and
 * compatibility forms unified: `ﬁ` is `fi`). Documents hold their texts folded; terms are folded the same way.
 */
export const fold = (text: string): string =>
  text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    // Full case folding as refs have it (lib/identity.ts, which the data layer does not read): upper
    // then lower case, twice (ẞ, ß → ss; σ and ς as one), so that a term folds as the texts it searches.
    .toUpperCase()
    .toLowerCase()
    .toUpperCase()
    .toLowerCase()
    .normalize('NFC');

/** A text's words: its runs of letters and digits. */
export const wordsOf = (folded: string): string[] => folded.split(/[^\p{L}\p{N}]+/u).filter(Boolean);

export type FieldValue = string | number;

/**
 * What the index keeps of a record: its id, the values its filters and orders read (numbers, or
 * strings that sort as they compare: padded decimals, ISO instants), and its texts folded, each
 * either one text or one per locale the record has texts in (every field of such a locale, `''` when
 * it has none).
 */
export interface SearchDocument {
  id: number;
  values: Readonly<Record<string, FieldValue>>;
  texts: Readonly<Record<string, string | Readonly<Record<string, string>>>>;
}

export type TextMode = 'equals' | 'contains' | 'any_word';

export type SearchFilter =
  /** The value is one of `values` (`not`: none of them). */
  | { kind: 'in'; field: string; values: readonly FieldValue[]; not?: boolean }
  /** The value is within the inclusive bounds given. */
  | { kind: 'range'; field: string; min?: FieldValue; max?: FieldValue }
  /** One of the texts equals, contains or shares a word with the folded term. */
  | { kind: 'text'; fields: readonly string[]; mode: TextMode; term: string };

export interface SearchOrder {
  /** A value's name, or a text's (`text`), sorted folded. */
  field: string;
  text: boolean;
  reverse: boolean;
}

/**
 * How localized texts are read: in `locale` when the record has texts in it, else in `fallback` (the
 * default language), as its row shows them (docs/conventions.md).
 */
export interface Reading {
  locale: string;
  fallback: string;
}

export interface SearchQuery extends Reading {
  kind: string;
  filters: readonly SearchFilter[];
  order: SearchOrder;
  limit: number;
  offset: number;
  /** Continue after this position (`[sortValue, id]`), rather than at `offset`. */
  after?: Position | undefined;
}

export interface SearchAnswer {
  /** The page's ids, in order, each with the position after it. */
  ids: number[];
  positions: Position[];
  /** Documents the filters match, all pages together. */
  total: number;
  /** Whether rows follow the page. */
  more: boolean;
}

/** A document's text in a field, read as its row shows it when the field is localized. */
export function textOf(document: SearchDocument, field: string, reading: Reading): string {
  const text = document.texts[field];
  if (text === undefined || typeof text === 'string') return text ?? '';
  return text[reading.locale] ?? text[reading.fallback] ?? '';
}

/** A decimal of millionths as a value that sorts as it compares (up to 10^19 - 1). */
export const decimalValue = (micros: bigint): string => String(micros).padStart(19, '0');

function textMatches(text: string, mode: TextMode, term: string): boolean {
  if (mode === 'equals') return text === term;
  if (mode === 'contains') return text.includes(term);
  const words = new Set(wordsOf(text));
  return wordsOf(term).some((word) => words.has(word));
}

/** Whether a document passes a filter, read in `locale`. */
export function passes(document: SearchDocument, filter: SearchFilter, reading: Reading): boolean {
  if (filter.kind === 'text') return filter.fields.some((field) => textMatches(textOf(document, field, reading), filter.mode, filter.term));
  const value = filter.field === 'id' ? document.id : document.values[filter.field];
  if (value === undefined) return false;
  if (filter.kind === 'in') return filter.values.includes(value) !== Boolean(filter.not);
  return (filter.min === undefined || compareValues(value, filter.min) >= 0) && (filter.max === undefined || compareValues(value, filter.max) <= 0);
}

export const matches = (document: SearchDocument, filters: readonly SearchFilter[], reading: Reading): boolean => filters.every((filter) => passes(document, filter, reading));

/**
 * Strings compare by code point (as SQLite's and Lucene's UTF-8 bytes do), not by UTF-16 unit: an
 * astral character sorts after U+FFFF everywhere.
 */
export function compareValues(a: FieldValue, b: FieldValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return compareKeys(String(a), String(b));
}

/** What a document sorts by in an order. */
export const sortValueOf = (document: SearchDocument, order: SearchOrder, reading: Reading): FieldValue =>
  order.text ? textOf(document, order.field, reading) : order.field === 'id' ? document.id : (document.values[order.field] ?? '');

/** A document's position in an order: its sort value, then its id (ties go by id, descending in a reverse order). */
export const positionIn = (document: SearchDocument, order: SearchOrder, reading: Reading): Position => [sortValueOf(document, order, reading), document.id];

/** Two positions in an order, either way. */
export function comparePositions([aValue = '', aId = 0]: Position, [bValue = '', bId = 0]: Position, order: SearchOrder): number {
  const byValue = compareValues(aValue, bValue) || compareValues(aId, bId);
  return order.reverse ? -byValue : byValue;
}
