/** Inputs of the brand routes (docs/api.md: Thelia 2.1–2.4's brand forms). */
import * as v from 'valibot';
import { CatalogTextsInput, MAX_LONG_TEXT, textsNeedTheirLocale } from '../catalog-texts-input.js';
import { langQuery, locale } from '../i18n.js';
import { flag, integer, longText, text } from '../validation.js';
import { BRAND_TEXTS } from './entity.js';

/** A locale's texts: a catalog record's, and the page's meta texts. */
export const BrandTexts = v.object({
  ...CatalogTextsInput.entries,
  meta_title: v.optional(text()),
  meta_description: v.optional(longText(MAX_LONG_TEXT)),
  meta_keywords: v.optional(longText(MAX_LONG_TEXT)),
});

export const BrandCreate = v.strictObject({
  visible: v.optional(flag(), false),
  /** Its place among the brands; default: after the last. */
  position: v.optional(integer(0)),
  locale: locale(),
  ...BrandTexts.entries,
});

const BRAND_TEXTS_NEED_THEIR_LOCALE = textsNeedTheirLocale(BRAND_TEXTS);

export const BrandUpdate = v.pipe(
  v.strictObject({
    id: integer(1),
    visible: v.optional(flag()),
    position: v.optional(integer(0)),
    locale: v.optional(locale()),
    ...v.partial(BrandTexts).entries,
  }),
  v.check((body) => Object.keys(body).some((field) => field !== 'id' && field !== 'locale'), 'has nothing to update: send id and at least one field to change'),
  v.forward(v.partialCheck(BRAND_TEXTS_NEED_THEIR_LOCALE.paths, BRAND_TEXTS_NEED_THEIR_LOCALE.holds, BRAND_TEXTS_NEED_THEIR_LOCALE.message), ['locale']),
);

export const BrandQuery = langQuery();

export type BrandCreateInput = v.InferOutput<typeof BrandCreate>;
export type BrandUpdateInput = v.InferOutput<typeof BrandUpdate>;
