/**
 * Which records of the table's stream are changes to push: inserted change items. The same pattern
 * is the event source mapping's filter on AWS (infra/constructs/change-events.ts) and, as a
 * predicate, what a local reader of the stream keeps.
 */
import { CHANGE_KEY_PREFIX } from '../db/changes.js';

/** The stream's records of items inserted under partition keys that start with `prefix`, as an event source mapping filters them. */
export const insertsUnder = (prefix: string) => ({ eventName: ['INSERT'], dynamodb: { Keys: { pk: { S: [{ prefix }] } } } }) as const;

export const CHANGE_INSERTS = insertsUnder(CHANGE_KEY_PREFIX);

type StreamRecord = { eventName?: string; dynamodb?: { Keys?: Record<string, { S?: string }> } };

/** Whether a stream record passes an `insertsUnder` filter, as the event source mapping judges it. */
export const passes = (filter: ReturnType<typeof insertsUnder>, record: StreamRecord): boolean =>
  filter.eventName.includes(record.eventName as 'INSERT') && (record.dynamodb?.Keys?.pk?.S ?? '').startsWith(filter.dynamodb.Keys.pk.S[0].prefix);

export const isChangeInsert = (record: StreamRecord): boolean => passes(CHANGE_INSERTS, record);
