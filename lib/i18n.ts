/**
 * Localized rows (CONTRACT §4): the `lang` parameter picks the locale; a record without text in it
 * shows the default language's texts with IS_TRANSLATED 0 and LOCALE still the requested one.
 */
import { defaultLang } from './reference/index.js';

export type Texts<Field extends string> = Partial<Record<Field, string>>;
export type I18n<Field extends string> = Record<string, Texts<Field>>;

export function translate<Field extends string>(
  i18n: I18n<Field>,
  locale: string,
  fields: readonly Field[],
): { locale: string; translated: boolean; texts: Record<Field, string> } {
  const own = i18n[locale];
  const source: Texts<Field> = own ?? i18n[defaultLang.locale] ?? {};
  const texts = Object.fromEntries(fields.map((f) => [f, source[f] ?? ''])) as Record<Field, string>;
  return { locale, translated: own !== undefined, texts };
}

/** Merges updates into per-locale texts: only the sent fields change. */
export function mergeTexts<Field extends string>(i18n: I18n<Field>, locale: string, changes: Texts<Field>): I18n<Field> {
  return { ...i18n, [locale]: { ...i18n[locale], ...changes } };
}
