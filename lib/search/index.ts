/**
 * What the search index keeps (CONTRACT §5.2): the products, customers and categories, each as its
 * list declares its documents; and the run that brings the index up to the change feed, for
 * `npm start`'s background work and the indexer function on AWS.
 */
import { categories } from '../categories/entity.js';
import { categoryList } from '../categories/list.js';
import { customers } from '../customers/entity.js';
import { customerList } from '../customers/list.js';
import type { SearchEngine } from '../db/lists/engine.js';
import { searchEngine } from '../opensearch/index.js';
import { project, projectionOf, type ProjectionRun } from '../db/lists/projector.js';
import { products } from '../products/entity.js';
import { productList } from '../products/list.js';

export const SEARCH_PROJECTIONS = [projectionOf(productList, products), projectionOf(customerList, customers), projectionOf(categoryList, categories)];

/** Brings the index up to the feed (rebuilding it when it is new or lost); undefined when this process has no index. */
export async function followIntoSearchIndex(engine: SearchEngine | undefined = searchEngine()): Promise<ProjectionRun | undefined> {
  return engine && project(engine, SEARCH_PROJECTIONS);
}
