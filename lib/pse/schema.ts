/**
 * Inputs of the sale element routes (docs/api.md: Thelia 2.1–2.4's `ProductSaleElements` forms, its
 * field names): `{"pse": [entry, …]}`, all or nothing.
 */
import * as v from 'valibot';
import { MAX_ATTRIBUTE_VALUES } from '../products/sale-elements.js';
import { MAX_DECIMAL } from '../products/schema.js';
import { currencyIds } from '../reference/index.js';
import { langQuery } from '../i18n.js';
import { decimal, flag, identifier, integer, knownId, text } from '../validation.js';
import { PLAIN_DECIMAL, parseMicros } from '../money.js';

/**
 * The most entries one request sends. They are written in one transaction: how many of them it
 * holds depends on what they write (about 45 stock changes, 22 new sale elements), and is checked
 * once they are planned (lib/pse/operations.ts).
 */
export const MAX_ENTRIES = 100;

/** A GTIN-8, -12, -13 or -14 whose last digit is its check digit (beyond Thelia, which takes any text). */
export const isGtin = (code: string): boolean => {
  if (!/^(\d{8}|\d{12,14})$/.test(code)) return false;
  const digits = [...code].map(Number);
  const check = digits.pop() as number;
  const sum = digits.reverse().reduce((total, digit, i) => total + digit * (i % 2 === 0 ? 3 : 1), 0);
  return (10 - (sum % 10)) % 10 === check;
};

/**
 * A stock change: a signed decimal of at most 6 fraction digits, in millionths. Its text is read as
 * a quantity's is, a minus allowed before it: no plus, exponent or space.
 */
const signedDecimal = () =>
  v.pipe(
    v.union([v.number(), v.string()], 'must be a number or a numeric string'),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const text = String(dataset.value);
      const negative = text.startsWith('-');
      const magnitude = negative ? text.slice(1) : text;
      const micros = PLAIN_DECIMAL.test(magnitude) || typeof dataset.value === 'number' ? parseMicros(magnitude) : undefined;
      if (micros === undefined || micros > MAX_DECIMAL) {
        addIssue({ message: 'must be a decimal, a minus before it to take (-3 takes three, 5 adds five): digits, then at most 6 decimals after a dot, no plus, exponent or space' });
        return NEVER;
      }
      return negative ? -micros : micros;
    }),
  );

/** What an entry may set of a sale element, on its create and its updates alike. */
const entryFields = {
  reference: v.optional(identifier()),
  ean_code: v.optional(
    v.pipe(
      text(),
      v.check((code) => code === '' || isGtin(code), 'must be a GTIN-8, -12, -13 or -14 with a valid check digit (or empty)'),
    ),
  ),
  quantity: v.optional(decimal(MAX_DECIMAL)),
  weight: v.optional(decimal(MAX_DECIMAL)),
  currency_id: v.optional(knownId(currencyIds, 'currency id')),
  price: v.optional(decimal(MAX_DECIMAL)),
  price_with_tax: v.optional(decimal(MAX_DECIMAL)),
  sale_price: v.optional(decimal(MAX_DECIMAL)),
  sale_price_with_tax: v.optional(decimal(MAX_DECIMAL)),
  onsale: v.optional(flag()),
  isnew: v.optional(flag()),
  isdefault: v.optional(flag()),
  use_exchange_rate: v.optional(flag()),
  attribute_av: v.optional(v.pipe(v.array(integer(1), 'must be an array of attribute value ids'), v.maxLength(MAX_ATTRIBUTE_VALUES, `holds at most ${MAX_ATTRIBUTE_VALUES} values`))),
  tax_rule_id: v.optional(integer(1)),
};

const onePriceOf = (a: 'price' | 'sale_price') => ({
  paths: [[a], [`${a}_with_tax`]] as [[typeof a], [`${typeof a}_with_tax`]],
  holds: (entry: Partial<Record<string, unknown>>) => entry[a] === undefined || entry[`${a}_with_tax`] === undefined,
  message: `send ${a} or ${a}_with_tax, not both`,
});
const ONE_PRICE = onePriceOf('price');
const ONE_SALE_PRICE = onePriceOf('sale_price');

export const PseCreateEntry = v.pipe(
  v.strictObject({
    ...entryFields,
    product_id: integer(1),
    reference: identifier(),
    currency_id: knownId(currencyIds, 'currency id'),
  }),
  v.forward(v.partialCheck(ONE_PRICE.paths, ONE_PRICE.holds, ONE_PRICE.message), ['price_with_tax']),
  v.forward(v.partialCheck(ONE_SALE_PRICE.paths, ONE_SALE_PRICE.holds, ONE_SALE_PRICE.message), ['sale_price_with_tax']),
);

export const PseUpdateEntry = v.pipe(
  v.strictObject({ ...entryFields, id: v.optional(integer(1)), quantity_delta: v.optional(signedDecimal()) }),
  v.forward(v.partialCheck(ONE_PRICE.paths, ONE_PRICE.holds, ONE_PRICE.message), ['price_with_tax']),
  v.forward(v.partialCheck(ONE_SALE_PRICE.paths, ONE_SALE_PRICE.holds, ONE_SALE_PRICE.message), ['sale_price_with_tax']),
  v.forward(
    v.partialCheck(
      [['quantity'], ['quantity_delta']],
      (entry) => entry.quantity === undefined || entry.quantity_delta === undefined,
      'send quantity (the stock) or quantity_delta (a change of it), not both',
    ),
    ['quantity_delta'],
  ),
);

const entries = <S extends v.GenericSchema>(entry: S) =>
  v.strictObject({ pse: v.pipe(v.array(entry, 'must be an array of entries'), v.minLength(1, 'must hold at least one entry'), v.maxLength(MAX_ENTRIES, `holds at most ${MAX_ENTRIES} entries`)) });

export const PseCreate = entries(PseCreateEntry);
export const PseUpdate = entries(PseUpdateEntry);

/** `currency`: the prices a row shows (docs/api.md); `lang` as every route takes it. */
export const PseQuery = v.object({ ...langQuery().entries, currency: v.optional(knownId(currencyIds, 'currency id')) });

export type PseCreateEntryInput = v.InferOutput<typeof PseCreateEntry>;
export type PseUpdateEntryInput = v.InferOutput<typeof PseUpdateEntry>;
export type PseCreateInput = v.InferOutput<typeof PseCreate>;
export type PseUpdateInput = v.InferOutput<typeof PseUpdate>;
export type PseQueryInput = v.InferOutput<typeof PseQuery>;

/**
 * A batch row's sale element (docs/batches-and-client.md: `POST /api/pse/batch`): one entry's fields. An upsert finds
 * its sale element by `reference` and changes what it sends — `{"op": "upsert", "reference": …,
 * "quantity": 12}` is an ERP's stock sync —, else creates one, for which `product_id` and
 * `currency_id` are required (checked then).
 */
export const PseBatchEntry = v.pipe(
  v.strictObject({ ...entryFields, reference: identifier(), product_id: v.optional(integer(1)) }),
  v.forward(v.partialCheck(ONE_PRICE.paths, ONE_PRICE.holds, ONE_PRICE.message), ['price_with_tax']),
  v.forward(v.partialCheck(ONE_SALE_PRICE.paths, ONE_SALE_PRICE.holds, ONE_SALE_PRICE.message), ['sale_price_with_tax']),
);
export const PseBatchUpdate = v.pipe(
  PseUpdateEntry,
  v.check((entry) => entry.id !== undefined, 'id is required'),
);

export type PseBatchEntryInput = v.InferOutput<typeof PseBatchEntry>;
