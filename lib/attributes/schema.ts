/** Inputs of the attribute routes (docs/api.md: Thelia 2.1–2.4's attribute forms). */
import * as v from 'valibot';
import { CatalogTextsInput, TEXTS_NEED_THEIR_LOCALE } from '../catalog-texts-input.js';
import { langQuery, locale } from '../i18n.js';
import { integer } from '../validation.js';

/** What an attribute and a value of it both take: texts in a locale and a place. */
export const positionedCreate = { position: v.optional(integer(0)), locale: locale(), ...CatalogTextsInput.entries };
export const positionedUpdate = { id: integer(1), position: v.optional(integer(0)), locale: v.optional(locale()), ...v.partial(CatalogTextsInput).entries };

/** An update's first rule: something to change besides its id and locale. */
const NOTHING_TO_UPDATE = 'has nothing to update: send id and at least one field to change';

export const AttributeCreate = v.strictObject(positionedCreate);
export const AttributeUpdate = v.pipe(
  v.strictObject(positionedUpdate),
  v.check((body) => Object.keys(body).some((field) => field !== 'id' && field !== 'locale'), NOTHING_TO_UPDATE),
  v.forward(v.partialCheck(TEXTS_NEED_THEIR_LOCALE.paths, TEXTS_NEED_THEIR_LOCALE.holds, TEXTS_NEED_THEIR_LOCALE.message), ['locale']),
);

export const AttributeQuery = langQuery();

export type AttributeCreateInput = v.InferOutput<typeof AttributeCreate>;
export type AttributeUpdateInput = v.InferOutput<typeof AttributeUpdate>;
