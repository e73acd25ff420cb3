/** A catalog record's texts as a create or an update sends them (catalog-texts.ts): their schema and their rule. */
import * as v from 'valibot';
import { CATALOG_TEXTS, type CatalogText } from './catalog-texts.js';
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

/** An update's rule, as its `v.partialCheck` takes it: texts come with the locale they are in. */
export const TEXTS_NEED_THEIR_LOCALE = {
  paths: [['locale'], ['title'], ['chapo'], ['description'], ['postscriptum']],
  holds: (body: { locale?: string | undefined } & Partial<Record<CatalogText, string | undefined>>) => body.locale !== undefined || CATALOG_TEXTS.every((field) => body[field] === undefined),
  message: 'is required when a text field is sent',
} as const;
