/** The reference routes' loop rows, as the OpenAPI document describes them (keys in the rows' order). */
import * as v from 'valibot';
import { loopEntries, rowBit, rowCount, rowId, rowLocale, rowText } from '../row-schema.js';

const localized = () => ({ ID: rowId(), LOCALE: rowLocale(), IS_TRANSLATED: rowBit() });

export const TitleRow = v.strictObject({ ...localized(), SHORT: rowText(), LONG: rowText(), POSITION: rowCount(), IS_DEFAULT: rowBit(), ...loopEntries() });

export const CountryRow = v.strictObject({
  ...localized(),
  TITLE: rowText(),
  ISOCODE: rowText(),
  ISOALPHA2: rowText(),
  ISOALPHA3: rowText(),
  IS_DEFAULT: rowBit(),
  HAS_STATES: rowBit(),
  NEED_ZIP_CODE: rowBit(),
  /** Thelia's format: N a digit, L a letter, C the country's code; "" when any zip code is taken. */
  ZIP_CODE_FORMAT: rowText(),
  VISIBLE: rowBit(),
  ...loopEntries(),
});

export const CurrencyRow = v.strictObject({
  ...localized(),
  NAME: rowText(),
  ISOCODE: rowText(),
  SYMBOL: rowText(),
  /** Against the default currency, six fraction digits. */
  RATE: v.pipe(v.string(), v.regex(/^\d+\.\d{6}$/)),
  IS_DEFAULT: rowBit(),
  ...loopEntries(),
});

export const LanguageRow = v.strictObject({ ID: rowId(), TITLE: rowText(), CODE: rowText(), LOCALE: rowLocale(), IS_DEFAULT: rowBit(), ...loopEntries() });

export const TaxRow = v.strictObject({
  ...localized(),
  TITLE: rowText(),
  DESCRIPTION: rowText(),
  /** Thelia's tax type class. */
  TYPE: rowText(),
  /** Its parameters, such as `{"percent": "20"}`. */
  REQUIREMENTS: v.record(v.string(), v.string()),
  ...loopEntries(),
});
