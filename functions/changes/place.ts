/**
 * The change feed's placer on AWS (lib/changes/placer.ts), not a route: the table's stream runs it
 * when markers of pending changes are inserted, and a schedule every minute, so that the feed is
 * kept up with nobody reading. At most one runs at a time (reserved concurrency 1, and the lease).
 */
import type { Context } from 'aws-lambda';
import { runRounds } from '../../lib/background-run.js';
import { placeChanges } from '../../lib/changes/placer.js';

export const handler = async (_event: unknown, context: Context): Promise<void> => {
  // One round: the placer places round after round itself, under its lease, until `stopBy`
  // (a round takes well under a second: 5 s are kept back).
  await runRounds(context, { reserveMs: 5_000 }, ({ stopBy }) => placeChanges(stopBy));
};
