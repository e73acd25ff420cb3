/** Inputs of the product routes (docs/api.md). */
import * as v from 'valibot';
import { currencyIds } from '../reference/index.js';
import { CatalogTextsInput, TEXTS_NEED_THEIR_LOCALE } from '../catalog-texts-input.js';
import { langQuery, locale } from '../i18n.js';
import { decimal, flag, identifier, integer, knownId } from '../validation.js';
/** Prices and weights up to 999 999 999 999.999999, in millionths. */
export const MAX_DECIMAL = 10n ** 18n - 1n;

export const ProductGeneral = v.object({
  ref: identifier(),
  default_category: integer(0),
  price: decimal(MAX_DECIMAL),
  currency: knownId(currencyIds, 'currency id'),
  /** 0 means the current default rule. */
  tax_rule: integer(0),
  weight: v.optional(decimal(MAX_DECIMAL)),
  visible: v.optional(flag()),
  brand_id: v.optional(integer(0)),
});

/** A locale's texts. */
export const ProductTexts = CatalogTextsInput;

export const ProductCreate = v.strictObject({ ...ProductGeneral.entries, locale: locale(), ...ProductTexts.entries });

export const ProductUpdate = v.pipe(
  v.strictObject({ ...v.partial(ProductGeneral).entries, locale: v.optional(locale()), ...v.partial(ProductTexts).entries }),
  v.check((body) => Object.keys(body).some((field) => field !== 'locale'), 'has nothing to update: send at least one field to change'),
  v.forward(v.partialCheck(TEXTS_NEED_THEIR_LOCALE.paths, TEXTS_NEED_THEIR_LOCALE.holds, TEXTS_NEED_THEIR_LOCALE.message), ['locale']),
);

export const ProductQuery = langQuery();

export type ProductGeneralInput = v.InferOutput<typeof ProductGeneral>;
export type ProductCreateInput = v.InferOutput<typeof ProductCreate>;
export type ProductUpdateInput = v.InferOutput<typeof ProductUpdate>;
