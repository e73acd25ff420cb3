/**
 * The local search index (lib/local/search-sqlite.ts) for a test file, in memory: registered for the
 * file's requests before its tests, forgotten after. `caughtUp()` runs the projection as `npm start`'s
 * background work does, so that a test asks its lists once the index has followed its writes.
 */
import { afterAll, beforeAll } from 'vitest';
import { useSearchEngine } from '../../lib/db/lists/engine.js';
import { SqliteSearchEngine } from '../../lib/local/search-sqlite.js';
import { present } from '../../lib/present.js';
import { followIntoSearchIndex } from '../../lib/search/index.js';

export function useSearchIndex() {
  let engine: SqliteSearchEngine | undefined;
  beforeAll(() => {
    engine = new SqliteSearchEngine(':memory:');
    useSearchEngine(engine);
  });
  afterAll(() => {
    useSearchEngine(undefined);
    engine?.close();
  });
  return {
    caughtUp: () => followIntoSearchIndex(engine),
    /** The index itself, to leave it as an older release would have (its noted position). */
    engine: () => present(engine, 'the test file’s search index'),
    /** Runs `work` as a deployment without a search index runs it; the index then follows what it missed. */
    async without(work: () => Promise<void>): Promise<void> {
      useSearchEngine(undefined);
      try {
        await work();
      } finally {
        useSearchEngine(engine);
      }
    },
    /** Replaces the index with an empty one, as a lost file would be. */
    lose() {
      engine?.close();
      engine = new SqliteSearchEngine(':memory:');
      useSearchEngine(engine);
    },
  };
}
