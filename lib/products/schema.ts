/** Inputs of the product routes (seed §2.2, CONTRACT §6). */
import * as v from 'valibot';
import { currencyIds } from '../reference/index.js';
import { langQuery, locale } from '../i18n.js';
import { decimal, flag, identifier, integer, knownId, longText, requiredText } from '../validation.js';
import { TEXT_FIELDS } from './entity.js';

export const MAX_LONG_TEXT = 10_000;
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
export const ProductTexts = v.object({
  title: requiredText(),
  chapo: v.optional(longText(MAX_LONG_TEXT)),
  description: v.optional(longText(MAX_LONG_TEXT)),
  postscriptum: v.optional(longText(MAX_LONG_TEXT)),
});

export const ProductCreate = v.strictObject({ ...ProductGeneral.entries, locale: locale(), ...ProductTexts.entries });

export const ProductUpdate = v.pipe(
  v.strictObject({ ...v.partial(ProductGeneral).entries, locale: v.optional(locale()), ...v.partial(ProductTexts).entries }),
  v.check((body) => Object.keys(body).some((field) => field !== 'locale'), 'has nothing to update: send at least one field to change'),
  v.forward(
    v.partialCheck(
      [['locale'], ...TEXT_FIELDS.map((field) => [field] as const)],
      (body) => body.locale !== undefined || TEXT_FIELDS.every((field) => body[field] === undefined),
      'is required when a text field is sent',
    ),
    ['locale'],
  ),
);

export const ProductQuery = langQuery();

export type ProductGeneralInput = v.InferOutput<typeof ProductGeneral>;
export type ProductCreateInput = v.InferOutput<typeof ProductCreate>;
export type ProductUpdateInput = v.InferOutput<typeof ProductUpdate>;
