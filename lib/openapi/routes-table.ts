/**
 * The table of every route that docs/api.md shows, made from the route table (lib/routes.ts) so that
 * it cannot go stale: `npm run openapi` writes it between its markers, and a test holds the file to it.
 */
import type { RouteDefinition } from '../route-definition.js';

export const ROUTES_START = '<!-- routes: written by npm run openapi from lib/routes.ts -->';
export const ROUTES_END = '<!-- routes: end -->';

export function routesTable(routes: readonly RouteDefinition[]): string {
  const shown = routes.filter((route) => route.path !== '$default');
  const rows = shown.map((route) => {
    const grant = route.permission ? `\`${route.permission.resource}\` ${route.permission.access}` : 'open';
    return `| ${route.method} | \`${route.path}\` | ${route.status} | ${grant} | \`${route.name}\` |`;
  });
  return [ROUTES_START, '', `${shown.length} routes:`, '', '| method | path | success | grant | function |', '|---|---|---|---|---|', ...rows, '', ROUTES_END].join('\n');
}

/** `doc` with its table of routes replaced by `table` (markers included). */
export function withRoutesTable(doc: string, table: string): string {
  const [start, end] = [doc.indexOf(ROUTES_START), doc.indexOf(ROUTES_END)];
  if (start < 0 || end < start) throw new Error(`the routes table's markers are missing: ${ROUTES_START} … ${ROUTES_END}`);
  return `${doc.slice(0, start)}${table}${doc.slice(end + ROUTES_END.length)}`;
}
