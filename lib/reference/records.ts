/**
 * The reference data of a fresh Thelia install, whole (our own copy, from shared/reference-data):
 * what the table setup loads, and what the runtime projection (runtime.json) is made from. Tooling
 * only: a Lambda bundles the projection (index.ts), never these files.
 */
import { present } from '../present.js';
import langsJson from './data/langs.json' with { type: 'json' };
import titlesJson from './data/titles.json' with { type: 'json' };
import currenciesJson from './data/currencies.json' with { type: 'json' };
import countriesJson from './data/countries.json' with { type: 'json' };
import taxesJson from './data/taxes.json' with { type: 'json' };
import taxRulesJson from './data/tax-rules.json' with { type: 'json' };

export interface SeedTaxRule {
  id: number;
  isDefault: boolean;
  i18n: Record<string, { title: string | null; description: string | null }>;
  countryTaxes: Array<{ country: number; tax: number; position: number }>;
}

/** Every reference record, by kind, as loaded into the table. */
export const referenceRecords = {
  LANG: langsJson,
  TITLE: titlesJson,
  CURRENCY: currenciesJson,
  COUNTRY: countriesJson,
  TAX: taxesJson,
} as const;

export const seedTaxRules: readonly SeedTaxRule[] = taxRulesJson;

/** What requests need of the reference data: ids to validate, zip formats, tax rates, the defaults. */
export function runtimeProjection() {
  return {
    langs: langsJson.map(({ id, title, code, locale, byDefault }) => ({ id, title, code, locale, byDefault })),
    titleIds: titlesJson.map((t) => t.id),
    currencyIds: currenciesJson.map((c) => c.id),
    /** [id, its rate to the default currency, as a decimal] */
    currencyRates: currenciesJson.map((c) => [c.id, String(c.rate)] as const),
    defaultCurrencyId: present(
      currenciesJson.find((c) => c.byDefault),
      'the default currency',
    ).id,
    /** [id, ISO alpha-2, zip code format] */
    countries: countriesJson.map((c) => [c.id, c.isoalpha2, c.zipCodeFormat] as const),
    defaultCountryId: present(
      countriesJson.find((c) => c.byDefault),
      'the default country',
    ).id,
    /** [id, percent rate] */
    taxes: taxesJson.map((t) => [t.id, t.requirements.percent] as const),
  };
}

export type RuntimeReference = ReturnType<typeof runtimeProjection>;

/**
 * The reference routes' rows (docs/api.md), one projection per kind, each bundled by its own routes
 * only (lib/reference-rows/rows.ts reads them as its ReferenceRows): a record's id, its texts per locale (their row keys; none when the kind is not localized)
 * and its other keys, in Thelia's loops' names and the row's order.
 */

/** A record's texts per locale, as row keys, without the texts it has not (Thelia's NULLs). */
function textsByLocale(i18n: Record<string, Record<string, string | null>>, keys: Record<string, string>): Record<string, Record<string, string>> {
  return Object.fromEntries(
    Object.entries(i18n)
      .map(([locale, texts]) => [locale, Object.fromEntries(Object.entries(keys).flatMap(([from, key]) => (texts[from] ? [[key, texts[from]]] : [])))] as const)
      .filter(([, texts]) => Object.keys(texts).length > 0),
  );
}

const bitOf = (value: boolean): number => (value ? 1 : 0);

export function referenceRows() {
  return {
    title: {
      texts: ['SHORT', 'LONG'],
      records: titlesJson.map((t) => ({ id: t.id, i18n: textsByLocale(t.i18n, { short: 'SHORT', long: 'LONG' }), fields: { POSITION: t.position, IS_DEFAULT: bitOf(t.byDefault) } })),
    },
    countries: {
      texts: ['TITLE'],
      records: countriesJson.map((c) => ({
        id: c.id,
        i18n: textsByLocale(c.i18n, { title: 'TITLE' }),
        fields: {
          ISOCODE: c.isocode,
          ISOALPHA2: c.isoalpha2,
          ISOALPHA3: c.isoalpha3,
          IS_DEFAULT: bitOf(c.byDefault),
          HAS_STATES: bitOf(c.hasStates),
          NEED_ZIP_CODE: bitOf(c.needZipCode),
          ZIP_CODE_FORMAT: c.zipCodeFormat ?? '',
          VISIBLE: bitOf(c.visible),
        },
      })),
    },
    currencies: {
      texts: ['NAME'],
      records: currenciesJson.map((c) => ({
        id: c.id,
        i18n: textsByLocale(c.i18n, { name: 'NAME' }),
        fields: { ISOCODE: c.code, SYMBOL: c.symbol, RATE: c.rate.toFixed(6), IS_DEFAULT: bitOf(c.byDefault) },
      })),
    },
    languages: {
      texts: [],
      records: langsJson.map((l) => ({ id: l.id, i18n: {}, fields: { TITLE: l.title, CODE: l.code, LOCALE: l.locale, IS_DEFAULT: bitOf(l.byDefault) } })),
    },
    taxes: {
      texts: ['TITLE', 'DESCRIPTION'],
      records: taxesJson.map((t) => ({
        id: t.id,
        i18n: textsByLocale(t.i18n, { title: 'TITLE', description: 'DESCRIPTION' }),
        fields: { TYPE: t.type, REQUIREMENTS: t.requirements },
      })),
    },
  };
}
