/**
 * The route table: every route of every resource the registry declares (resources.ts), in its order:
 * the one source of truth for each route's method, path, handler module, success status, and the
 * grant and access its caller needs. The CDK stacks, the local server and its router, the OpenAPI
 * document, the `events/` samples and the tests are all generated from it.
 */
import type { RouteDefinition } from './route-definition.js';
import { folderOfRoute, registry, type DeclaredRoute } from './resources.js';

export * from './route-definition.js';
export { GRANTS } from './resources.js';

// Pure to esbuild: a function's bundle, which asks for its own route only (routeByName), does not gather the table.
export const routes: readonly DeclaredRoute[] = /* @__PURE__ */ registry.flatMap<DeclaredRoute>((resource) => resource.routes);

export type RouteName = DeclaredRoute['name'];

/** The `{param}` names of a path template. */
type ParamNames<Path extends string> = Path extends `${string}{${infer Param}}${infer Rest}` ? Param | ParamNames<Rest> : never;

/** A route's path parameters, as the ids they are (checked to be positive integers before use). */
export type PathParams<Name extends RouteName> = { [Param in ParamNames<Extract<DeclaredRoute, { name: Name }>['path']>]: number };

export function routeByName(name: RouteName): RouteDefinition {
  const found = registry.find((resource) => resource.folder === folderOfRoute(name))?.routes.find((r) => r.name === name);
  if (!found) throw new Error(`unknown route ${name}`);
  return found;
}

/** Path of the handler module (relative to the repository root) that serves a route. */
export const handlerFile = (r: RouteDefinition): string => `functions/${r.name}.ts`;
