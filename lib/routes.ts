/**
 * The route table: the one source of truth for every route's method, path, handler module, success
 * status, and the resource and access its caller needs. The CDK stack, the local server, the
 * OpenAPI-free router, the `events/` samples and the tests are all generated from it.
 */
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type Resource = 'customer' | 'product' | 'tax';
export type Access = 'VIEW' | 'CREATE' | 'UPDATE' | 'DELETE';

export interface RouteDefinition {
  /** Stable name, also the handler module under `functions/` and the CDK construct id. */
  readonly name: string;
  readonly method: Method;
  /** API Gateway path template; `{param}` segments are positive integer ids. */
  readonly path: string;
  readonly status: 200 | 201 | 204;
  /** `null` for the open health check; otherwise what the caller's key must be granted. */
  readonly permission: { readonly resource: Resource; readonly access: Access } | null;
  /** Whether the route takes a JSON body (POST and PUT). */
  readonly body: boolean;
}

const route = (
  name: string,
  method: Method,
  path: string,
  status: RouteDefinition['status'],
  resource: Resource | null,
  access: Access,
): RouteDefinition => ({
  name,
  method,
  path,
  status,
  permission: resource ? { resource, access } : null,
  body: method === 'POST' || method === 'PUT',
});

export const routes = [
  route('health/get', 'GET', '/api', 200, null, 'VIEW'),

  route('tax-rules/list', 'GET', '/api/tax-rules', 200, 'tax', 'VIEW'),
  route('tax-rules/get', 'GET', '/api/tax-rules/{entityId}', 200, 'tax', 'VIEW'),
  route('tax-rules/create', 'POST', '/api/tax-rules', 201, 'tax', 'CREATE'),
  route('tax-rules/update', 'PUT', '/api/tax-rules', 201, 'tax', 'UPDATE'),
  route('tax-rules/delete', 'DELETE', '/api/tax-rules/{entityId}', 204, 'tax', 'DELETE'),

  route('customers/list', 'GET', '/api/customers', 200, 'customer', 'VIEW'),
  route('customers/get', 'GET', '/api/customers/{entityId}', 200, 'customer', 'VIEW'),
  route('customers/create', 'POST', '/api/customers', 201, 'customer', 'CREATE'),
  route('customers/update', 'PUT', '/api/customers', 201, 'customer', 'UPDATE'),
  route('customers/delete', 'DELETE', '/api/customers/{entityId}', 204, 'customer', 'DELETE'),
  route('customers/check-login', 'POST', '/api/customers/checkLogin', 200, 'customer', 'VIEW'),

  route('products/list', 'GET', '/api/products', 200, 'product', 'VIEW'),
  route('products/get', 'GET', '/api/products/{productId}', 200, 'product', 'VIEW'),
  route('products/create', 'POST', '/api/products', 201, 'product', 'CREATE'),
  route('products/update', 'PUT', '/api/products/{productId}', 204, 'product', 'UPDATE'),
  route('products/delete', 'DELETE', '/api/products/{productId}', 204, 'product', 'DELETE'),
] as const satisfies readonly RouteDefinition[];

export type RouteName = (typeof routes)[number]['name'];

export function routeByName(name: RouteName): RouteDefinition {
  const found = routes.find((r) => r.name === name);
  if (!found) throw new Error(`unknown route ${name}`);
  return found;
}

/** Path of the handler module (relative to the repository root) that serves a route. */
export const handlerFile = (r: RouteDefinition): string => `functions/${r.name}.ts`;
