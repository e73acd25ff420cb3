/** A tax rule's loop row, as the OpenAPI document describes it (keys in docs/conventions.md's order). */
import * as v from 'valibot';
import { loopEntries, rowBit, rowDate, rowId, rowIds, rowLocale, rowText, rowVersion } from '../row-schema.js';

export const TaxRuleRow = v.strictObject({
  ID: rowId(),
  LOCALE: rowLocale(),
  IS_TRANSLATED: rowBit(),
  TITLE: rowText(),
  DESCRIPTION: rowText(),
  IS_DEFAULT: rowBit(),
  COUNTRIES: rowIds(),
  TAXES: rowIds(),
  VERSION: rowVersion(),
  CREATE_DATE: rowDate(),
  UPDATE_DATE: rowDate(),
  ...loopEntries(),
});
