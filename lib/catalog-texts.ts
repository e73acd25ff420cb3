/**
 * The texts a catalog record (a product, a category) has in each of its locales, as Thelia names
 * them: title, chapo, description, postscriptum. Written once for both: how they are stored and shown
 * in a row (docs/conventions.md); how they are sent and checked, in catalog-texts-input.ts, which only the
 * routes that take them bundle.
 */
import * as v from 'valibot';
import { invalidField } from './errors.js';
import { mergeTexts, translate, type I18n, type Texts } from './i18n.js';
import { bit } from './row.js';

export const CATALOG_TEXTS = ['title', 'chapo', 'description', 'postscriptum'] as const;
export type CatalogText = (typeof CATALOG_TEXTS)[number];

/** A locale's texts as stored. */
export const StoredCatalogTexts = v.object({ title: v.optional(v.string()), chapo: v.optional(v.string()), description: v.optional(v.string()), postscriptum: v.optional(v.string()) });

/** The texts among `fields` an input sends, and only those. */
export const sentTextsOf = <Field extends string>(fields: readonly Field[], input: Partial<Record<Field, string | undefined>>): Texts<Field> =>
  Object.fromEntries(fields.filter((field) => input[field] !== undefined).map((field) => [field, input[field]])) as Texts<Field>;

/** The catalog texts an input sends, and only those. */
export const sentTexts = (input: Partial<Record<CatalogText, string | undefined>>): Texts<CatalogText> => sentTextsOf(CATALOG_TEXTS, input);

/** A row's localized part, in the contract's order: LOCALE, IS_TRANSLATED, then the texts in `locale` (else the default language's). */
export function catalogTextsRow(i18n: I18n<CatalogText>, locale: string) {
  const { translated, texts } = translate(i18n, locale, CATALOG_TEXTS);
  return { LOCALE: locale, IS_TRANSLATED: bit(translated), TITLE: texts.title, CHAPO: texts.chapo, DESCRIPTION: texts.description, POSTSCRIPTUM: texts.postscriptum };
}

/** A row's localized part for any texts (`meta_title` shows as `META_TITLE`): LOCALE, IS_TRANSLATED, then each field in `fields`' order. */
export function localizedRow<Field extends string>(i18n: I18n<Field>, locale: string, fields: readonly Field[]): Record<string, string | number> {
  const { translated, texts } = translate(i18n, locale, fields);
  return { LOCALE: locale, IS_TRANSLATED: bit(translated), ...Object.fromEntries(fields.map((field) => [field.toUpperCase(), texts[field]])) };
}

/**
 * A record's texts after an update that sent `texts` in `locale`: merged into that locale (only the
 * sent fields change); a locale the record did not have needs its title (400 on `title`).
 */
export function textsAfterUpdate<Field extends 'title' | string>(i18n: I18n<Field>, locale: string | undefined, texts: Texts<Field>): I18n<Field> {
  const next = locale && Object.keys(texts).length ? mergeTexts(i18n, locale, texts) : i18n;
  if (locale && !(next[locale] as Partial<Record<string, string>> | undefined)?.title) throw invalidField('title', 'is required for a new locale');
  return next;
}
