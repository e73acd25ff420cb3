/** Inputs of the customer routes (docs/api.md). */
import * as v from 'valibot';
import { countries, langById, titleIds, zipCodeMatches } from '../reference/index.js';
import { identifier, integer, JsonNumberText, knownId, MAX_TEXT, password, requiredText, text } from '../validation.js';

/** At least 8 characters by default; STORE_PASSWORD_MIN_LENGTH raises (or lowers) it. */
export const passwordMinLength = (): number => Number(process.env.STORE_PASSWORD_MIN_LENGTH ?? 8);
export const PASSWORD_MAX_LENGTH = 128;

const email = () => v.pipe(identifier(MAX_TEXT), v.email('must be a valid email address'));

/** Zip codes are strings, even when sent as numbers (as their digits were written). */
const zipcode = () =>
  v.pipe(
    v.union(
      [
        v.string(),
        v.pipe(v.number(), v.integer(), v.minValue(0), v.transform(String)),
        v.pipe(
          v.instance(JsonNumberText),
          v.transform((n) => n.source),
          v.regex(/^\d+$/),
        ),
      ],
      'must be a string',
    ),
    requiredText(20),
  );

export const CustomerFields = v.strictObject({
  title: knownId(titleIds, 'customer title id'),
  firstname: requiredText(),
  lastname: requiredText(),
  email: email(),
  password: password(passwordMinLength(), PASSWORD_MAX_LENGTH),
  lang_id: knownId(langById, 'language id'),
  country: knownId(countries, 'country id'),
  zipcode: zipcode(),
  city: requiredText(),
  address1: requiredText(),
  address2: v.optional(text()),
  address3: v.optional(text()),
});

export const zipcodeMismatch = 'does not match the zip code format of the country';

/** Whether a zip code fits its country's format (an unknown country is its own field's error). */
export const zipcodeFits = (countryId: number, code: string): boolean => {
  const country = countries.get(countryId);
  return !country || zipCodeMatches(country, code);
};

/** The zip code's rule depends on the country: it is checked only when both are valid on their own. */
export const CustomerCreate = v.pipe(
  CustomerFields,
  v.forward(
    v.partialCheck([['country'], ['zipcode']], (c) => zipcodeFits(c.country, c.zipcode), zipcodeMismatch),
    ['zipcode'],
  ),
);

/** Every field optional; a zip code sent with its country is checked here, one sent alone against the stored country. */
export const CustomerUpdate = v.pipe(
  v.strictObject({ id: integer(1), ...v.partial(CustomerFields).entries }),
  v.check((body) => Object.keys(body).length > 1, 'has nothing to update: send id and at least one field to change'),
  v.forward(
    v.partialCheck([['country'], ['zipcode']], (c) => c.country === undefined || c.zipcode === undefined || zipcodeFits(c.country, c.zipcode), zipcodeMismatch),
    ['zipcode'],
  ),
);

/** Any non-empty password is checked (a store moved from Thelia may hold shorter ones than ours). */
export const CheckLogin = v.strictObject({ email: email(), password: password(1, PASSWORD_MAX_LENGTH) });

export type CustomerCreateInput = v.InferOutput<typeof CustomerCreate>;
export type CustomerUpdateInput = v.InferOutput<typeof CustomerUpdate>;
export type CheckLoginInput = v.InferOutput<typeof CheckLogin>;
