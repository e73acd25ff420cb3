/**
 * A change as an EventBridge event (docs/changes-events-webhooks.md): `source` `store-api`, `detail-type`
 * `<resource>.<type>`, `detail` the change row. A change too large for one entry (256 KB) carries
 * `CHANGES` as null and `TRUNCATED: 1`: the feed has it whole.
 */
import type { PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { changeRow } from '../changes/row.js';
import type { Change } from '../db/changes.js';
import { LIMITS } from '../limits.js';

export const EVENT_SOURCE = 'store-api';
/** What EventBridge counts of an entry besides Source, DetailType and Detail: its Time. */
const TIME_BYTES = 14;

/** An entry's size as EventBridge counts it, against 256 KB for an entry and for a PutEvents call. */
export const entryBytes = (entry: PutEventsRequestEntry): number =>
  TIME_BYTES + Buffer.byteLength(entry.Source ?? '') + Buffer.byteLength(entry.DetailType ?? '') + Buffer.byteLength(entry.Detail ?? '');

export function changeEvent(change: Change, eventBusName: string): PutEventsRequestEntry {
  const row = changeRow(change);
  const entry: PutEventsRequestEntry = {
    EventBusName: eventBusName,
    Source: EVENT_SOURCE,
    DetailType: `${change.resource}.${change.type}`,
    Time: new Date(change.date),
    Detail: JSON.stringify(row),
  };
  if (entryBytes(entry) <= LIMITS.eventbridge.entryBytes) return entry;
  return { ...entry, Detail: JSON.stringify({ ...row, CHANGES: null, TRUNCATED: 1 }) };
}
