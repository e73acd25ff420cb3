/** The webhook routes' rows, as the OpenAPI document describes them (docs/changes-events-webhooks.md). */
import * as v from 'valibot';
import { loopEntries, rowBit, rowCount, rowDate, rowId, rowText } from '../row-schema.js';

const webhookEntries = {
  ID: rowId(),
  URL: rowText(),
  EVENTS: v.array(rowText()),
  DESCRIPTION: rowText(),
  ENABLED: rowBit(),
  DISABLED_REASON: v.picklist(['', 'gone', 'failing']),
  CREATE_DATE: rowDate(),
  UPDATE_DATE: rowDate(),
};

export const WebhookRow = v.strictObject({ ...webhookEntries, SECRET: v.optional(v.pipe(v.string(), v.regex(/^whsec_[A-Za-z0-9+/]{43}=$/))), ...loopEntries() });

export const DeliveryRow = v.strictObject({
  CHANGE_ID: rowText(),
  ATTEMPT: rowId(),
  DATE: rowDate(),
  STATUS: rowCount(),
  ERROR: rowText(),
  NEXT_ATTEMPT: v.nullable(rowDate()),
  ...loopEntries(),
});

export const ReplayRow = v.strictObject({ ID: rowId(), REPLAYED: rowCount(), ...loopEntries() });
