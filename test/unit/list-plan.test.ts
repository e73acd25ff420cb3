/** The planner (lib/db/lists/plan.ts): which lists the table serves, and which go to the search index, for the product list's declaration. */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { planList } from '../../lib/db/lists/plan.js';
import { productList, ProductListQuery, productRoutes } from '../../lib/products/list.js';

/** The route a query string is served by: its index in productRoutes, or `search`. */
function servedBy(query: string): number | 'search' {
  const args = v.parse(ProductListQuery, Object.fromEntries(new URLSearchParams(query)));
  const { route } = planList(productList, productRoutes, args);
  return route ? productRoutes.indexOf(route) : 'search';
}

describe('the list planner', () => {
  it.each([
    ['', 1],
    ['order=ref_reverse', 1],
    ['visible=*&order=id', 1],
    ['visible=1', 5],
    ['visible=0&order=ref', 5],
    ['category=3', 6],
    ['category_default=3&order=id_reverse', 7],
    ['ref=ABC', 0],
    ['ref=ABC&title=x&min_price=3&order=alpha', 0],
    ['category=3,5', 'search'],
    ['category=3&order=ref', 'search'],
    ['visible=1&category=3', 'search'],
    ['order=min_price', 2],
    ['order=max_price', 2],
    ['min_price=10&order=min_price', 'search'],
    ['order=updated', 3],
    ['order=updated_reverse', 3],
    ['updated_since=2026-01-01&order=updated', 3],
    ['updated_since=2026-01-01&order=updated_reverse', 3],
    ['updated_since=2026-01-01&visible=1&order=updated', 'search'],
    ['created_since=2026-01-01&order=updated', 'search'],
    ['order=created', 4],
    ['order=created_reverse', 4],
    ['created_since=2026-01-01&order=created', 4],
    ['created_since=2026-01-01&updated_since=2026-01-01&order=created', 'search'],
    ['order=alpha', 'search'],
    ['title=chaise', 'search'],
    ['updated_since=2026-01-01', 'search'],
    ['search_in=title', 1],
  ] as const)('serves %s by %s', (query, route) => {
    expect(servedBy(query)).toBe(route);
  });
});
