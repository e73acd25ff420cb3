/** A category's loop row, as the OpenAPI document describes it (keys in row.ts's order). */
import * as v from 'valibot';
import { catalogTextsRowEntries, loopEntries, rowBit, rowCount, rowDate, rowId, rowVersion } from '../row-schema.js';

export const CategoryRow = v.strictObject({
  ID: rowId(),
  ...catalogTextsRowEntries(),
  PARENT: rowCount(),
  VISIBLE: rowBit(),
  POSITION: rowCount(),
  VERSION: rowVersion(),
  CREATE_DATE: rowDate(),
  UPDATE_DATE: rowDate(),
  ...loopEntries(),
});
