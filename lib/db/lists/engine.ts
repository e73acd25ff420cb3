/**
 * What a search index does for the lists (docs/lists.md), whichever it is: SQLite FTS5 locally
 * (lib/local/search-sqlite.ts), OpenSearch Serverless on AWS (lib/opensearch/). A process that runs
 * one registers it here; a deployment without one has none, and a list that needs it is refused.
 */
import type { FeedPosition } from '../feed.js';
import type { SearchAnswer, SearchDocument, SearchQuery } from './query.js';

/** The documents of one kind to put or remove, and the feed's position once they are. */
export interface IndexWrite {
  kind: string;
  put: readonly SearchDocument[];
  remove: readonly number[];
}

export interface SearchEngine {
  /** Ids in the query's order with the total. */
  query(query: SearchQuery): Promise<SearchAnswer>;
  /** Applies writes, then notes the feed position they bring the index to (`undefined`: during a rebuild). */
  write(writes: readonly IndexWrite[], position: FeedPosition | undefined): Promise<void>;
  /** The feed position the index has followed to; none when it is new, lost, or being rebuilt. */
  position(): Promise<FeedPosition | undefined>;
  /** Empties the index of these kinds, and forgets its position, for a rebuild. */
  clear(kinds: readonly string[]): Promise<void>;
}

let registered: SearchEngine | undefined;

/** Makes this process use `engine` (the local runtime's SQLite index); `undefined` forgets it. */
export function useSearchEngine(engine: SearchEngine | undefined): void {
  registered = engine;
}

/** The engine this process registered, if any. */
export const registeredSearchEngine = (): SearchEngine | undefined => registered;

/**
 * The form of the documents (how their texts are folded and split: query.ts `fold`, `wordsOf`), noted
 * with the position: an index whose documents have another form is rebuilt (projector.ts), so that a
 * term is never folded one way and the texts it searches another. 2: full case folding (ß = ss, σ and
 * ς as one). 3: OpenSearch keeps each text's words as the model splits them.
 */
export const DOCUMENT_FORM = 3;

/** Whether an index answers for every record, as its lists need: it notes a position, in the documents' form (none while it is built). */
export const isWhole = (position: FeedPosition | undefined): boolean => (position as { form?: number } | undefined)?.form === DOCUMENT_FORM;
