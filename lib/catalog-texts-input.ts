/** A catalog record's texts as a create or an update sends them (catalog-texts.ts): their schema and their rule. */
import * as v from 'valibot';
import { CATALOG_TEXTS } from './catalog-texts.js';
import { longText, requiredText } from './validation.js';

/** The longest chapo, description or postscriptum, in characters. */
export const MAX_LONG_TEXT = 10_000;

/** A locale's texts as a create sends them: the title required (an update sends each or not: `v.partial`). */
export const CatalogTextsInput = v.object({
  title: requiredText(),
  chapo: v.optional(longText(MAX_LONG_TEXT)),
  description: v.optional(longText(MAX_LONG_TEXT)),
  postscriptum: v.optional(longText(MAX_LONG_TEXT)),
});

/** An update's rule, as its `v.partialCheck` takes it: texts (any of `fields`) come with the locale they are in. */
export const textsNeedTheirLocale = <const Field extends string>(fields: readonly Field[]) =>
  ({
    paths: [['locale'], ...fields.map((field) => [field] as [Field])] as [['locale'], ...[Field][]],
    holds: (body: { locale?: string | undefined } & Partial<Record<Field, unknown>>) => body.locale !== undefined || fields.every((field) => body[field] === undefined),
    message: 'is required when a text field is sent',
  }) as const;

/** A catalog record's rule: its four texts come with their locale. */
export const TEXTS_NEED_THEIR_LOCALE = textsNeedTheirLocale(CATALOG_TEXTS);
