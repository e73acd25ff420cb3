/**
 * Localized texts (docs/conventions.md): the `lang` parameter picks the locale; a record without text in it
 * shows the default language's texts with IS_TRANSLATED 0 and LOCALE still the requested one. Also
 * the input schemas of locales and `lang`.
 */
import * as v from 'valibot';
import { defaultLang, findLang, langByLocale, type Lang } from './reference/index.js';

export type Texts<Field extends string> = Partial<Record<Field, string>>;
export type I18n<Field extends string> = Record<string, Texts<Field>>;

export function translate<Field extends string>(i18n: I18n<Field>, locale: string, fields: readonly Field[]): { locale: string; translated: boolean; texts: Record<Field, string> } {
  const own = i18n[locale];
  const source: Texts<Field> = own ?? i18n[defaultLang.locale] ?? {};
  const texts = Object.fromEntries(fields.map((f) => [f, source[f] ?? ''])) as Record<Field, string>;
  return { locale, translated: own !== undefined, texts };
}

/** Merges updates into per-locale texts: only the sent fields change. */
export function mergeTexts<Field extends string>(i18n: I18n<Field>, locale: string, changes: Texts<Field>): I18n<Field> {
  return { ...i18n, [locale]: { ...i18n[locale], ...changes } };
}

/** The locale a row is shown in: `lang`, else the given fallback (a create's locale), else the default language. */
export const localeOf = (lang: Lang | undefined, fallback?: string): string => lang?.locale ?? fallback ?? defaultLang.locale;

/** A `locale` field: one of the languages' locales. */
export const locale = () =>
  v.pipe(
    v.string('must be a string'),
    v.check((l) => langByLocale.has(l), 'is not a known language locale'),
  );

/** `lang`: a locale like fr_FR or a language id, given as the language it names. */
export const langParam = () =>
  v.optional(
    v.pipe(
      v.string(),
      v.rawTransform(({ dataset, addIssue, NEVER }): Lang => {
        const lang = findLang(dataset.value);
        if (lang) return lang;
        addIssue({ message: 'is not a known language (a locale like fr_FR or a language id)' });
        return NEVER;
      }),
    ),
  );

/** `?lang=` alone, for single reads, creates and updates. */
export const langQuery = () => v.object({ lang: langParam() });
