/** A category's loop row, as the OpenAPI document describes it (keys in row.ts's order). */
import * as v from 'valibot';
import { loopEntries, rowBit, rowCount, rowDate, rowId, rowLocale, rowText, rowVersion } from '../row-schema.js';

export const CategoryRow = v.strictObject({
  ID: rowId(),
  LOCALE: rowLocale(),
  IS_TRANSLATED: rowBit(),
  TITLE: rowText(),
  CHAPO: rowText(),
  DESCRIPTION: rowText(),
  POSTSCRIPTUM: rowText(),
  PARENT: rowCount(),
  VISIBLE: rowBit(),
  POSITION: rowCount(),
  VERSION: rowVersion(),
  CREATE_DATE: rowDate(),
  UPDATE_DATE: rowDate(),
  ...loopEntries(),
});
