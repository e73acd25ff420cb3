/**
 * Thelia rows → the API's records (docs/moving-from-thelia.md), or the problems that keep a row out: what every
 * kind's mapping (`lib/<resource>/import.ts`) shares. Every value goes through the same valibot
 * schemas as the API's own creates, so that an imported record is one the API could have written;
 * what the API cannot represent is never guessed at but named, with the Thelia column it comes from.
 * Pure: no database here.
 */
import * as v from 'valibot';
import { sentTextsOf, CATALOG_TEXTS, type CatalogText } from '../catalog-texts.js';
import type { I18n } from '../i18n.js';
import { langByLocale } from '../reference/index.js';

/** Why a row is not imported: the Thelia column at fault and what is wrong with it. */
export interface Problem {
  field: string;
  message: string;
}

/**
 * A value the import changed on its way in (docs/moving-from-thelia.md): the Thelia row it came from (its table, its
 * id, and for a text its locale), the column, what was done to it, and the value before and after.
 */
export interface Normalization {
  table: string;
  row: number;
  locale?: string;
  column: string;
  what: string;
  before: string | null;
  after: string | number | null;
}

export type Mapped<R> = { record: R; problems?: undefined; normalized: Normalization[] } | { record?: undefined; problems: Problem[]; normalized?: undefined };

/** What the API's text schemas did to a text (they trim it and put it in NFC), in the order they do it. */
export function whatChanged(before: string, after: string): string {
  const steps: string[] = [];
  let text = before;
  if (text.trim() !== text) steps.push('trimmed');
  text = text.trim();
  if (text.normalize('NFC') !== text) steps.push('normalized to NFC');
  text = text.normalize('NFC');
  if (text !== after) steps.push('changed');
  return steps.join(', ');
}

/** The texts a schema changed, each named by its Thelia row and column: the values given and the values kept. */
export function changedTexts(
  place: Omit<Normalization, 'column' | 'what' | 'before' | 'after'>,
  given: Record<string, unknown>,
  kept: Record<string, unknown>,
  columns: readonly string[],
): Normalization[] {
  const changed: Normalization[] = [];
  for (const column of columns) {
    const [before, after] = [given[column], kept[column]];
    if (typeof before !== 'string' || before === after) continue;
    changed.push({ ...place, column, what: whatChanged(before, typeof after === 'string' ? after : ''), before, after: typeof after === 'string' ? after : null });
  }
  return changed;
}

export type Path = readonly (string | number)[];

/** Problems from a schema's issues, named by the Thelia column each input field came from. */
export function problemsOf(issues: readonly v.BaseIssue<unknown>[], column: (path: Path) => string): Problem[] {
  const problems = new Map<string, Problem>();
  for (const issue of issues) {
    const path = (issue.path ?? []).map((item) => item.key as string | number);
    const field = column(path);
    if (problems.has(field)) continue; // the first issue of a field is the most basic one
    const message =
      issue.input === undefined && issue.kind === 'schema' ? 'is empty' : typeof issue.input === 'number' && /^is /.test(issue.message) ? `${issue.input} ${issue.message}` : issue.message;
    problems.set(field, { field, message });
  }
  return [...problems.values()];
}

/** Thelia's DATETIME as the API's ISO string. */
const iso = (date: Date): string => date.toISOString();

/** A text column: empty (NULL or blank) means no text. */
export const textOf = (value: string | null): string | undefined => (value === null || value.trim() === '' ? undefined : value);

/** Texts made only of spaces, which the import keeps as no text: values changed on the way in. */
export function blankTexts<C extends string>(rows: readonly ({ locale: string } & Record<C, string | null>)[], place: { table: string; row: number }, columns: readonly C[]): Normalization[] {
  return rows.flatMap((row) =>
    columns.flatMap((column) => {
      const value = row[column];
      return value && textOf(value) === undefined ? [{ ...place, locale: row.locale, column, what: 'trimmed to nothing: no text', before: value, after: null }] : [];
    }),
  );
}

/** A record's dates: its creation is required; a record never updated was last updated when created. */
export function datesOf(table: string, row: { createdAt: Date | null; updatedAt: Date | null }, problems: Problem[]) {
  if (!row.createdAt) {
    problems.push({ field: `${table}.created_at`, message: 'is empty' });
    return undefined;
  }
  return { createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt ?? row.createdAt) };
}

export const list = (values: readonly unknown[]) => values.join(', ');

/** How a kind's texts are mapped: which columns (a catalog record's four by default), and whether a record with none is refused (the default) or kept with empty texts. */
export interface TextsMapping<F extends string> {
  fields: readonly F[];
  untitled: 'refused' | 'kept';
}

/**
 * A record's texts per locale, from its `<table>` rows (products' and categories' texts are the same
 * four), through the API's own schema of them; a locale whose texts are all empty is no translation.
 * A record with no text at all is a problem, or (`untitled: 'kept'`: brands, attributes, whose ids
 * what refers to them needs) kept with empty texts, which the report names.
 */
export function localizedTexts<F extends string = CatalogText>(
  rows: readonly ({ locale: string } & Record<F, string | null>)[],
  place: { table: string; row: number },
  schema: v.GenericSchema<Record<string, string>, Partial<Record<F, string | undefined>>>,
  problems: Problem[],
  normalized: Normalization[],
  { fields = CATALOG_TEXTS as readonly string[] as readonly F[], untitled = 'refused' }: Partial<TextsMapping<F>> = {},
): I18n<F> {
  const i18n: I18n<F> = {};
  normalized.push(...blankTexts(rows, place, fields));
  for (const row of rows) {
    const texts = Object.fromEntries(fields.map((field) => [field, textOf(row[field])]).filter(([, text]) => text !== undefined)) as Record<string, string>;
    if (Object.keys(texts).length === 0) continue;
    if (!langByLocale.has(row.locale)) {
      problems.push({ field: `${place.table}.locale`, message: `${row.locale} is not a known language locale` });
      continue;
    }
    const parsed = v.safeParse(schema, texts);
    if (parsed.success) {
      i18n[row.locale] = sentTextsOf(fields, parsed.output);
      normalized.push(...changedTexts({ ...place, locale: row.locale }, texts, parsed.output, fields));
    } else problems.push(...problemsOf(parsed.issues, ([field]) => `${place.table}[${row.locale}].${String(field)}`));
  }
  if (Object.keys(i18n).length === 0 && problems.length === 0) {
    if (untitled === 'refused') problems.push({ field: place.table, message: 'has no title in any locale' });
    else normalized.push({ ...place, column: 'title', what: 'no text in any locale: imported with empty texts', before: null, after: null });
  }
  return i18n;
}
