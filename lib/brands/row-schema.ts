/** A brand's loop row, as the OpenAPI document describes it (keys in row.ts's order). */
import * as v from 'valibot';
import { catalogTextsRowEntries, loopEntries, rowBit, rowCount, rowDate, rowId, rowText, rowVersion } from '../row-schema.js';

export const BrandRow = v.strictObject({
  ID: rowId(),
  ...catalogTextsRowEntries(),
  META_TITLE: rowText(),
  META_DESCRIPTION: rowText(),
  META_KEYWORDS: rowText(),
  POSITION: rowCount(),
  VISIBLE: rowBit(),
  LOGO_IMAGE_ID: rowCount(),
  VERSION: rowVersion(),
  CREATE_DATE: rowDate(),
  UPDATE_DATE: rowDate(),
  ...loopEntries(),
});
