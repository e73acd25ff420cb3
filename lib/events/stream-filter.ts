/**
 * Which records of the table's stream are changes to push: inserted change items. The same pattern
 * is the event source mapping's filter on AWS (infra/constructs/change-events.ts) and, as a
 * predicate, what a local reader of the stream keeps.
 */
import { CHANGE_KEY_PREFIX } from '../db/changes.js';
import { insertsUnder, passes, type StreamRecord } from '../db/stream-filter.js';

export const CHANGE_INSERTS = insertsUnder(CHANGE_KEY_PREFIX);

export const isChangeInsert = (record: StreamRecord): boolean => passes(CHANGE_INSERTS, record);
