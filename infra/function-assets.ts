/**
 * The files a function's bundle ships beside it (read when first needed), by handler module: one
 * answer for the stack, which gives each function its own, and for `npm run build:infra`, which
 * prebuilds each module once for the packed library with every file any function of it reads.
 */
import { sampleFileOf } from '../lib/deploy/pre-traffic.js';
import { handlerFile, routes, type RouteDefinition } from '../lib/routes.js';

/** The pre-traffic hook's module: one hook per routes stack. */
export const PRE_TRAFFIC_HOOK = 'functions/deploy/pre-traffic.ts';

/** Each route's events/ sample, which the hook sends to the route's new version. */
export const preTrafficAssets = (checked: readonly RouteDefinition[]): string[] => checked.map((route) => `events/${sampleFileOf(route.name)}`);

/** Every file any function made of this module reads beside its bundle. */
export function assetsOf(entry: string): string[] {
  if (entry === PRE_TRAFFIC_HOOK) return preTrafficAssets(routes);
  return [...new Set(routes.filter((route) => handlerFile(route) === entry).flatMap((route) => route.deployment.assets ?? []))];
}
