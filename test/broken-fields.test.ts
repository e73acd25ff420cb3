/**
 * One valid body per write route, then one field broken (and then two), in every way a client could
 * get it wrong: unknown ids for every reference, wrong types, empty, blank, huge, negative,
 * fractional, exponent, control characters, lone surrogates, invisible-only texts. Every answer must
 * be a 400 that names each broken field, and the table must be as it was (fast-check, fixed seeds).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { call, problemFields, superadminKey, tableSnapshot } from './support/api.js';
import { createCustomer, createProduct, createTaxRule, customerInput, productInput } from './support/fixtures.js';

const RUNS = 150;

const huge = (n: number) => 'x'.repeat(n);
const wrongTypes = [null, true, [], {}];
const unknownIds = [0, 99_999, -1, 1.5, '0', 'abc', '', 1e3 + 0.5, ...wrongTypes];
const oneLine = ['', '   ', 'a\u0007b', 'a\nb', 'a\u0085b', 'a\u2028b', '\uD800x', '\u200B\u200D', huge(256), 42, ...wrongTypes];
const optionalOneLine = ['a\u0007b', 'a\tb', '\uD800x', '\u200B', huge(256), 42, ...wrongTypes];
const longText = ['a\u0007b', 'a\u2029b', '\uDFFF', huge(10_001), 42, ...wrongTypes];
const decimals = [-1, '-0.5', '1.1234567', '1e400', 'abc', '', '1e18', ...wrongTypes];
// biome-ignore lint/correctness/noPrecisionLoss: 2^53 + 1, which a double cannot hold, is what the test sends.
const nonNegative = [-1, 1.5, '1e3', 'x', 9_007_199_254_740_993, ...wrongTypes];

/**
 * A field and the ways to break it. Some values break a rule that depends on more than the field:
 * `unlessBroken` names a field whose own error hides that rule (a zip code's format needs a valid
 * country); `unlessAnyOther` marks a value only the table can refuse (a tax rule that does not
 * exist), which is named once the rest of the body is valid (README, Decisions).
 */
interface Breakage {
  values: unknown[];
  dependent?: { values: unknown[]; unlessBroken?: string; unlessAnyOther?: boolean };
}
type Breakages = Record<string, Breakage>;

interface WriteRoute {
  method: 'POST' | 'PUT';
  path: () => string;
  valid: () => Record<string, unknown>;
  breakages: Breakages;
}

let ids = { customer: 0, product: 0, rule: 0 };

const customerFields: Breakages = {
  title: { values: unknownIds },
  firstname: { values: oneLine },
  lastname: { values: oneLine },
  email: { values: ['not an email', 'a@b', ' ', ...oneLine.slice(2)] },
  lang_id: { values: unknownIds },
  country: { values: unknownIds },
  zipcode: { values: ['', '\u0007', -1, 1.5, huge(21), ...wrongTypes], dependent: { values: ['ABCDE', '7500', '750011'], unlessBroken: 'country' } },
  city: { values: oneLine },
  address1: { values: oneLine },
  address2: { values: optionalOneLine },
};

const productFields: Breakages = {
  ref: { values: oneLine },
  default_category: { values: nonNegative },
  price: { values: decimals },
  currency: { values: unknownIds },
  tax_rule: { values: [-1, 1.5, 'x', ...wrongTypes], dependent: { values: [99_999], unlessAnyOther: true } },
  weight: { values: decimals },
  visible: { values: [2, 'yes', -1, null, [], {}] },
  brand_id: { values: nonNegative },
  locale: { values: ['xx_XX', 'fr', '', 42, ...wrongTypes] },
  title: { values: oneLine },
  chapo: { values: longText },
  description: { values: longText },
  postscriptum: { values: longText },
};

const taxRuleFields: Breakages = {
  country: { values: [[], [99_999], [64, 64], [1.5], 'x', ...wrongTypes.slice(0, 2)] },
  tax: { values: [[], [99_999], [1, 1], ['x'], 7, null] },
  i18n: { values: [[], [{ locale: 'xx_XX', title: 't' }], [{ locale: 'en_US', title: '' }], [{ locale: 'en_US', title: '\uD800' }], [{ locale: 'en_US', title: 't', extra: 1 }], 'x', null] },
  default: { values: [2, 'yes', [], null] },
};

const routes: Record<string, WriteRoute> = {
  'POST /api/customers': {
    method: 'POST',
    path: () => '/api/customers',
    valid: () => customerInput(),
    breakages: { ...customerFields, password: { values: ['short', '\uD800abcdefgh', huge(129), 42, '', ...wrongTypes] } },
  },
  'PUT /api/customers': { method: 'PUT', path: () => '/api/customers', valid: () => ({ id: ids.customer, city: 'Lyon', zipcode: '69001', country: 64 }), breakages: customerFields },
  'POST /api/customers/checkLogin': {
    method: 'POST',
    path: () => '/api/customers/checkLogin',
    valid: () => ({ email: 'someone@example.com', password: 'a password' }),
    breakages: { email: { values: ['not an email', '', 42, null] }, password: { values: ['', '\uD800', huge(129), 42, null] } },
  },
  'POST /api/products': { method: 'POST', path: () => '/api/products', valid: () => productInput({ weight: 1, visible: 1, brand_id: 0, chapo: 'c' }), breakages: productFields },
  'PUT /api/products/{id}': { method: 'PUT', path: () => `/api/products/${ids.product}`, valid: () => ({ price: '5', locale: 'en_US', title: 'Renamed', chapo: 'c' }), breakages: productFields },
  'POST /api/tax-rules': { method: 'POST', path: () => '/api/tax-rules', valid: () => ({ country: [64], tax: [1], i18n: [{ locale: 'en_US', title: 'Valid' }] }), breakages: taxRuleFields },
  'PUT /api/tax-rules': {
    method: 'PUT',
    path: () => '/api/tax-rules',
    valid: () => ({ id: ids.rule, country: [64], tax: [1], i18n: [{ locale: 'fr_FR', title: 'Valide' }] }),
    breakages: taxRuleFields,
  },
};

beforeAll(async () => {
  await superadminKey();
  ids = { customer: (await createCustomer()).row.ID, product: (await createProduct()).row.ID, rule: (await createTaxRule()).ID };
});

/** Whether an error's field is this body field or inside it (i18n[0].title is inside i18n). */
const names = (fields: string[], field: string) => fields.some((f) => f === field || f.startsWith(`${field}[`) || f.startsWith(`${field}.`));

describe('write routes with one or two broken fields', () => {
  it.each(Object.keys(routes))(
    '%s answers 400 naming each broken field, and changes nothing',
    async (name) => {
      const route = routes[name]!;
      const breakages = route.breakages;
      const fields = Object.keys(breakages);
      const broken = fc
        .uniqueArray(fc.constantFrom(...fields), { minLength: 1, maxLength: 2 })
        .chain((chosen) => fc.tuple(...chosen.map((field) => fc.constantFrom(...breakages[field]!.values, ...(breakages[field]!.dependent?.values ?? [])).map((value) => [field, value] as const))));
      const before = await tableSnapshot();
      await fc.assert(
        fc.asyncProperty(broken, async (changes) => {
          const body = { ...route.valid(), ...Object.fromEntries(changes) };
          const response = await call(route.method, route.path(), { body });
          const where = `${name} ${JSON.stringify(Object.fromEntries(changes))} → ${response.status} ${response.text}`;
          expect(response.status, where).toBe(400);
          const named = problemFields(response);
          for (const [field, value] of changes) {
            const dependent = breakages[field]!.dependent;
            const hidden =
              dependent?.values.includes(value) &&
              ((dependent.unlessBroken !== undefined && changes.some(([other]) => other === dependent.unlessBroken)) || (dependent.unlessAnyOther && changes.length > 1));
            if (!hidden) expect(names(named, field), where).toBe(true);
          }
        }),
        { numRuns: RUNS, seed: 20261122 },
      );
      expect(await tableSnapshot()).toEqual(before);
    },
    120_000,
  );
});
