/** A customer's loop row, as the OpenAPI document describes it (keys in docs/conventions.md's order). */
import * as v from 'valibot';
import { loopEntries, rowDate, rowId, rowText, rowVersion } from '../row-schema.js';

export const CustomerRow = v.strictObject({
  ID: rowId(),
  // `CUS` and the id on 12 digits; Thelia's own, for a customer imported with one.
  REF: rowText(),
  TITLE: rowId(),
  FIRSTNAME: rowText(),
  LASTNAME: rowText(),
  EMAIL: rowText(),
  LANG_ID: rowId(),
  ADDRESS1: rowText(),
  ADDRESS2: rowText(),
  ADDRESS3: rowText(),
  ZIPCODE: rowText(),
  CITY: rowText(),
  COUNTRY: rowId(),
  VERSION: rowVersion(),
  CREATE_DATE: rowDate(),
  UPDATE_DATE: rowDate(),
  ...loopEntries(),
});
