/** Inputs of the product routes (seed §2.2, CONTRACT §6). */
import * as v from 'valibot';
import { currencyIds } from '../reference/index.js';
import { decimal, flag, integer, knownId, locale, requiredText, text } from '../validation.js';
import { langQuery, listQuery } from '../http/list-query.js';

export const MAX_LONG_TEXT = 10_000;
/** Prices and weights up to 999 999 999 999.999999, in millionths. */
export const MAX_DECIMAL = 10n ** 18n - 1n;

const general = {
  ref: requiredText(),
  default_category: integer(0),
  price: decimal(MAX_DECIMAL),
  currency: knownId(currencyIds, 'currency id'),
  /** 0 means the current default rule. */
  tax_rule: integer(0),
  weight: v.optional(decimal(MAX_DECIMAL)),
  visible: v.optional(flag()),
  brand_id: v.optional(integer(0)),
};

const texts = {
  title: requiredText(),
  chapo: v.optional(text(MAX_LONG_TEXT)),
  description: v.optional(text(MAX_LONG_TEXT)),
  postscriptum: v.optional(text(MAX_LONG_TEXT)),
};

export const TEXT_FIELDS = ['title', 'chapo', 'description', 'postscriptum'] as const;

export const ProductCreate = v.strictObject({ ...general, locale: locale(), ...texts });

const optional = <T extends v.ObjectEntries>(entries: T) =>
  Object.fromEntries(Object.entries(entries).map(([name, schema]) => [name, v.optional(schema)])) as { [K in keyof T]: v.OptionalSchema<T[K], undefined> };

export const ProductUpdate = v.pipe(
  v.strictObject({ ...optional(general), locale: v.optional(locale()), ...optional(texts) }),
  v.check((body) => Object.keys(body).some((field) => field !== 'locale'), 'has nothing to update: send at least one field to change'),
  v.forward(
    v.check((body) => body.locale !== undefined || TEXT_FIELDS.every((field) => body[field] === undefined), 'is required when a text field is sent'),
    ['locale'],
  ),
);

export const ProductListQuery = listQuery(['id', 'id_reverse', 'ref', 'ref_reverse'], {
  ref: v.optional(v.string()),
  visible: v.optional(v.picklist(['1', '0', '*'], 'must be 1, 0 or *'), '*'),
});
export const ProductQuery = langQuery();

export type ProductCreateInput = v.InferOutput<typeof ProductCreate>;
export type ProductUpdateInput = v.InferOutput<typeof ProductUpdate>;
export type ProductListInput = v.InferOutput<typeof ProductListQuery>;
