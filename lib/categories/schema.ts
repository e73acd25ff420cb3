/** Inputs of the category routes (docs/api.md: Thelia 2.1–2.4's category forms). */
import * as v from 'valibot';
import { CatalogTextsInput, TEXTS_NEED_THEIR_LOCALE } from '../catalog-texts-input.js';
import { langQuery, locale } from '../i18n.js';
import { flag, integer } from '../validation.js';

/** A locale's texts. */
export const CategoryTexts = CatalogTextsInput;

const CategoryGeneral = v.object({
  /** An existing category's id; 0 (the default) for the root. */
  parent: v.optional(integer(0), 0),
  visible: v.optional(flag(), false),
});

export const CategoryCreate = v.strictObject({ ...CategoryGeneral.entries, locale: locale(), ...CategoryTexts.entries });

export const CategoryUpdate = v.pipe(
  v.strictObject({
    id: integer(1),
    parent: v.optional(integer(0)),
    visible: v.optional(flag()),
    position: v.optional(integer(0)),
    locale: v.optional(locale()),
    ...v.partial(CategoryTexts).entries,
  }),
  v.check((body) => Object.keys(body).some((field) => field !== 'id' && field !== 'locale'), 'has nothing to update: send id and at least one field to change'),
  v.forward(v.partialCheck(TEXTS_NEED_THEIR_LOCALE.paths, TEXTS_NEED_THEIR_LOCALE.holds, TEXTS_NEED_THEIR_LOCALE.message), ['locale']),
);

/** `manual` is by position, as Thelia's category loop orders by default. */
export const CategoryQuery = langQuery();

export type CategoryCreateInput = v.InferOutput<typeof CategoryCreate>;
export type CategoryUpdateInput = v.InferOutput<typeof CategoryUpdate>;
