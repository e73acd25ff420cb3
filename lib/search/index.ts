/**
 * What the search index keeps (docs/lists.md): the records of each resource whose list route
 * `searches` (the registry), each projected as its folder declares (`lib/<module>/search.ts`); and
 * the run that brings the index up to the change feed, for `npm start`'s background work and the
 * indexer function on AWS.
 */
import type { SearchEngine } from '../db/lists/engine.js';
import { project, type Projection, type ProjectionRun } from '../db/lists/projector.js';
import { searchEngine } from '../opensearch/index.js';
import { moduleOf, registry } from '../resources.js';

/** The modules whose records the index keeps: those of the resources a list of which the index answers. */
export const SEARCHED_MODULES = [...new Set(registry.filter((resource) => resource.routes.some((route) => route.deployment.searches)).map(moduleOf))];

/**
 * Each searched module's projection, loaded once (the indexer asks at every round). The import names
 * the `.ts` file: esbuild bundles every file the pattern matches (a glob import, `../*\/search.ts`,
 * which maps no `.js` to `.ts`), and tsx and vitest load the source itself.
 */
let projections: Promise<Projection[]> | undefined;
export const searchProjections = (): Promise<Projection[]> =>
  (projections ??= Promise.all(SEARCHED_MODULES.map(async (module) => ((await import(`../${module}/search.ts`)) as { projection: Projection }).projection)));

/** Brings the index up to the feed (rebuilding it when it is new or lost); undefined when this process has no index. */
export async function followIntoSearchIndex(engine: SearchEngine | undefined = searchEngine()): Promise<ProjectionRun | undefined> {
  return engine && project(engine, await searchProjections());
}
