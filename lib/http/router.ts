/**
 * Matches a method and path against the route table. The local server routes with it, and the
 * deployed API's catch-all function uses it to answer 404/405 the way the local server does.
 */
import { routes, type RouteDefinition } from '../routes.js';
import { isPathId } from './path-ids.js';
import { HttpProblem } from './problem.js';

export interface RouteMatch {
  route: RouteDefinition;
  params: Record<string, string>;
}

interface CompiledRoute {
  route: RouteDefinition;
  pattern: RegExp;
  paramNames: string[];
}

// The catch-all (`$default`) is what answers when nothing here matches.
const compiled: CompiledRoute[] = routes
  .filter((route) => route.method !== 'ANY')
  .map((route) => {
    const paramNames: string[] = [];
    const source = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => {
      paramNames.push(name);
      return '(\\d+)';
    });
    return { route, pattern: new RegExp(`^${source}/?$`), paramNames };
  });

/** The route for a request, or the 404/405 problem to answer with. */
export function matchRoute(method: string, path: string): RouteMatch | HttpProblem {
  const allowed = new Set<string>();
  // HEAD is served by the GET route (head.ts drops the body).
  const wanted = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  for (const { route, pattern, paramNames } of compiled) {
    const m = pattern.exec(path);
    if (!m) continue;
    const values = m.slice(1);
    if (!values.every(isPathId)) continue;
    if (route.method !== wanted) {
      allowed.add(route.method);
      if (route.method === 'GET') allowed.add('HEAD');
      continue;
    }
    return { route, params: Object.fromEntries(paramNames.map((n, i) => [n, values[i] ?? ''])) };
  }
  if (allowed.size > 0) {
    const allow = [...allowed].sort().join(', ');
    return new HttpProblem(405, `method ${method.toUpperCase()} is not allowed here; allowed: ${allow}`, {
      headers: { Allow: allow },
    });
  }
  return new HttpProblem(404, `no route for ${path}`);
}

/** The answer for a request no route serves: 405 when the path exists with other methods, else 404. */
export function notFoundOrNotAllowed(method: string, path: string): HttpProblem {
  const match = matchRoute(method, path);
  return match instanceof HttpProblem ? match : new HttpProblem(404, `no route for ${path}`);
}
