/**
 * The search index's indexer on AWS (docs/lists.md; lib/search/), deployed with `-c search=opensearch`:
 * woken by the table's stream when changes are placed in the feed and by a schedule of one run a
 * minute, it brings the OpenSearch collection up to the feed (rebuilding it when it is new or lost),
 * round after round while writes keep coming, until 5 s of its minute are left. `npm start` runs the
 * same projection into its SQLite index.
 */
import type { Context } from 'aws-lambda';
import { runRounds } from '../../lib/background-run.js';
import { followIntoSearchIndex } from '../../lib/search/index.js';

export const handler = async (_event: unknown, context: Context): Promise<void> => {
  let written = 0;
  await runRounds(
    context,
    { reserveMs: 5_000, everyMs: 500 },
    async () => {
      written = (await followIntoSearchIndex())?.written ?? 0;
    },
    async () => written > 0,
  );
};
