/**
 * The change feed's placer on AWS (lib/changes/placer.ts), not a route: the table's stream runs it
 * when markers of pending changes are inserted, and a schedule every minute, so that the feed is
 * kept up with nobody reading. At most one runs at a time (reserved concurrency 1, and the lease).
 */
import type { Context } from 'aws-lambda';
import { placeChanges } from '../../lib/changes/placer.js';

/** Stop starting rounds when this much of the invocation is left: a round takes well under a second. */
const RESERVE_MS = 5_000;

export const handler = async (_event: unknown, context: Context): Promise<void> => {
  await placeChanges(Date.now() + context.getRemainingTimeInMillis() - RESERVE_MS);
};
