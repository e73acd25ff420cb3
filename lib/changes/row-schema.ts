/** A change's loop row, as the OpenAPI document describes it (docs/changes-events-webhooks.md). */
import * as v from 'valibot';
import { loopEntries, rowDate, rowId, rowLocale, rowText, rowVersion } from '../row-schema.js';
import { CHANGE_RESOURCES } from './schema.js';

/** A value as the record's row shows it, or null where the record had none (and always for a password). */
const shownValue = () => v.union([v.string(), v.number(), v.array(v.number()), v.record(v.string(), v.array(v.string())), v.null()]);

export const FieldChangeSchema = v.strictObject({
  field: rowText(),
  /** A text's locale; a sale element's price's currency (`currency:2`); null for any other field. */
  locale: v.nullable(v.union([rowLocale(), v.pipe(v.string(), v.regex(/^currency:\d+$/))])),
  before: shownValue(),
  after: shownValue(),
});

export const ChangeRow = v.strictObject({
  ID: rowText(),
  RESOURCE: v.picklist(CHANGE_RESOURCES),
  ENTITY_ID: v.union([rowId(), v.pipe(v.string(), v.regex(/^[0-9A-F]{25}$/))]),
  TYPE: v.picklist(['created', 'updated', 'deleted']),
  VERSION: rowVersion(),
  CHANGES: v.array(FieldChangeSchema),
  API_KEY: rowText(),
  REQUEST_ID: rowText(),
  DATE: rowDate(),
  ...loopEntries(),
});
