/**
 * The reference data requests need (docs/api.md): languages, and the ids, zip formats and tax rates
 * that inputs are validated and prices taxed with. It is a projection of the whole data (records.ts),
 * generated into data/runtime.json by `npm run reference`, so that a Lambda bundles only this.
 */
import { present } from '../present.js';
import runtime from './data/runtime.json' with { type: 'json' };

export interface Lang {
  id: number;
  title: string;
  code: string;
  locale: string;
  byDefault: boolean;
}

export interface Country {
  id: number;
  isoalpha2: string;
  zipCodeFormat: string | null;
}

export interface Tax {
  id: number;
  /** Percent rate as a decimal string, e.g. "20". */
  percent: string;
}

export const langs: readonly Lang[] = runtime.langs;
export const defaultLang: Lang = present(
  langs.find((l) => l.byDefault),
  'the default language',
);
export const langByLocale = new Map(langs.map((l) => [l.locale, l]));
export const langById = new Map(langs.map((l) => [l.id, l]));

export const titleIds = new Set(runtime.titleIds);
export const currencyIds = new Set(runtime.currencyIds);
/** Each currency's rate to the default currency (its price is the default one's times it), as a decimal. */
export const currencyRates = new Map<number, string>(runtime.currencyRates.map(([id, rate]) => [Number(id), String(rate)]));
/** The shop's currency: the prices of the others may follow it (docs/api.md). */
export const defaultCurrencyId: number = runtime.defaultCurrencyId;
export const countries = new Map<number, Country>(
  runtime.countries.map(([id, isoalpha2, zipCodeFormat]) => [Number(id), { id: Number(id), isoalpha2: String(isoalpha2), zipCodeFormat: zipCodeFormat === null ? null : String(zipCodeFormat) }]),
);
export const taxes = new Map<number, Tax>(runtime.taxes.map(([id, percent]) => [Number(id), { id: Number(id), percent: String(percent) }]));

/** The shop's country: taxed prices are computed for it (docs/conventions.md). */
export const defaultCountryId: number = runtime.defaultCountryId;

/**
 * Thelia's zip-code formats: N a digit, L a letter, C the country's ISO alpha-2 code, anything else
 * itself. A country without a format accepts any zip code.
 */
export function zipCodeMatches(country: Country, zipcode: string): boolean {
  if (!country.zipCodeFormat) return true;
  const pattern = [...country.zipCodeFormat].map((ch) => (ch === 'N' ? '\\d' : ch === 'L' ? '[A-Za-z]' : ch === 'C' ? country.isoalpha2 : ch.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&'))).join('');
  return new RegExp(`^${pattern}$`, 'i').test(zipcode);
}

/** A `lang` query value: a locale like fr_FR or a language id. */
export function findLang(value: string): Lang | undefined {
  return /^\d+$/.test(value) ? langById.get(Number(value)) : langByLocale.get(value);
}
