/** A product's loop row, as the OpenAPI document describes it (keys in docs/conventions.md's order). */
import * as v from 'valibot';
import { catalogTextsRowEntries, loopEntries, rowBit, rowCount, rowDate, rowDecimal, rowId, rowText, rowVersion } from '../row-schema.js';

export const ProductRow = v.strictObject({
  ID: rowId(),
  REF: rowText(),
  ...catalogTextsRowEntries(),
  PRICE: rowDecimal(),
  CURRENCY: rowId(),
  TAXED_PRICE: rowDecimal(),
  WEIGHT: rowDecimal(),
  VISIBLE: rowBit(),
  DEFAULT_CATEGORY: rowCount(),
  TAX_RULE_ID: rowId(),
  BRAND_ID: rowCount(),
  VERSION: rowVersion(),
  CREATE_DATE: rowDate(),
  UPDATE_DATE: rowDate(),
  ...loopEntries(),
});
