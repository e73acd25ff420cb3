/** An attribute value's loop row, as the OpenAPI document describes it (keys in row.ts's order). */
import * as v from 'valibot';
import { catalogTextsRowEntries, loopEntries, rowCount, rowDate, rowId, rowVersion } from '../row-schema.js';

export const AttributeAvRow = v.strictObject({
  ID: rowId(),
  ATTRIBUTE_ID: rowId(),
  ...catalogTextsRowEntries(),
  POSITION: rowCount(),
  VERSION: rowVersion(),
  CREATE_DATE: rowDate(),
  UPDATE_DATE: rowDate(),
  ...loopEntries(),
});
