/**
 * The search index of a deployment: the one this process registered (`npm start`'s SQLite, a test's),
 * else OpenSearch Serverless when the stack was synthesized with `-c search=opensearch` (its
 * functions then have STORE_SEARCH_ENDPOINT), else none.
 */
import { registeredSearchEngine, type SearchEngine } from '../db/lists/engine.js';
import { OpenSearchEngine } from './engine.js';

let fromEnvironment: SearchEngine | undefined;

export function searchEngine(): SearchEngine | undefined {
  const registered = registeredSearchEngine();
  if (registered) return registered;
  const endpoint = process.env.STORE_SEARCH_ENDPOINT;
  if (!endpoint) return undefined;
  fromEnvironment ??= new OpenSearchEngine(endpoint);
  return fromEnvironment;
}
