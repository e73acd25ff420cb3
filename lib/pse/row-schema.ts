/** A sale element's loop row, as the OpenAPI document describes it (keys in row.ts's order). */
import * as v from 'valibot';
import { loopEntries, rowBit, rowCount, rowDate, rowDecimal, rowId, rowIds, rowText, rowVersion } from '../row-schema.js';

export const PseRow = v.strictObject({
  ID: rowId(),
  PRODUCT_ID: rowId(),
  REF: rowText(),
  EAN_CODE: rowText(),
  QUANTITY: rowDecimal(),
  IS_PROMO: rowBit(),
  IS_NEW: rowBit(),
  IS_DEFAULT: rowBit(),
  WEIGHT: rowDecimal(),
  CURRENCY: rowCount(),
  PRICE: rowDecimal(),
  PRICE_TAX: rowDecimal(),
  TAXED_PRICE: rowDecimal(),
  PROMO_PRICE: rowDecimal(),
  PROMO_PRICE_TAX: rowDecimal(),
  TAXED_PROMO_PRICE: rowDecimal(),
  ATTRIBUTE_AVS: rowIds(),
  VERSION: rowVersion(),
  CREATE_DATE: rowDate(),
  UPDATE_DATE: rowDate(),
  ...loopEntries(),
});
