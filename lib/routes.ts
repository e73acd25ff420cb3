/**
 * The route table: the one source of truth for every route's method, path, handler module, success
 * status, and the resource and access its caller needs. The CDK stack, the local server and its
 * router, the OpenAPI document, the `events/` samples and the tests are all generated from it.
 */
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'ANY';
export const RESOURCES = ['customer', 'product', 'tax'] as const;
export const ACCESSES = ['VIEW', 'CREATE', 'UPDATE', 'DELETE'] as const;
export type Resource = (typeof RESOURCES)[number];
/**
 * What a route may be protected by: a resource's access; `change`, VIEW of any resource (the changes
 * of which it then sees); `webhook`, a superadmin key.
 */
export type ProtectedBy = Resource | 'change' | 'webhook';
export type Access = (typeof ACCESSES)[number];

/** The DynamoDB IAM actions a route's function may use (transactions are authorized per item action). */
export type DynamoDbAction = 'GetItem' | 'BatchGetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem';

export interface Permission {
  readonly resource: ProtectedBy;
  readonly access: Access;
}

export interface RouteDefinition {
  /** Stable name, also the handler module under `functions/` and the CDK construct id. */
  readonly name: string;
  readonly method: Method;
  /** API Gateway path template; `{param}` segments are positive integer ids. `$default` catches the rest. */
  readonly path: string;
  readonly status: 200 | 201 | 204 | 404;
  /** `null` for open routes; otherwise what the caller's key must be granted. */
  readonly permission: Permission | null;
  /** Whether the route takes a JSON body (POST and PUT). */
  readonly body: boolean;
  /** Least privilege: exactly what the function's role gets on the table (Query also on its indexes). */
  readonly dynamodb: readonly DynamoDbAction[];
  /**
   * Where its writes may go, when not anywhere: the partition keys' patterns (`dynamodb:LeadingKeys`);
   * a read's only writes are its caller's quota.
   */
  readonly writesUnder?: readonly string[];
  /** Whether the route hashes or verifies passwords: CPU-bound work of ~100 ms a request. */
  readonly hashesPasswords: boolean;
  /** Lambda memory (and so CPU): the routes that hash passwords get more. */
  readonly memoryMb: number;
  /** Files (from the repository's root) shipped beside the function's bundle, read when first needed. */
  readonly assets?: readonly string[];
  /** A protected GET of a collection: it pages (limit, offset, cursor) and answers rows with list headers. */
  readonly list: boolean;
  /** A list followed by its cursor (the change feed): every page, an empty one too, gives one; it takes `cursor=now` and may answer 410. */
  readonly followed: boolean;
  /** A create: it takes an Idempotency-Key (checkLogin, a read though a POST, does not). */
  readonly idempotent: boolean;
  /** Why a create refuses an Idempotency-Key (400), when it does: said in the answer and the reference. */
  readonly refusesIdempotencyKey?: string;
  /** Whether the route needs the server secret: lists sign cursors, creates fingerprint Idempotency-Keys. */
  readonly usesServerSecret: boolean;
  /** Whether it seals a new secret (lib/sealed-secrets.ts); every protected route opens API keys' secure keys. */
  readonly sealsSecrets: boolean;
}

interface RouteOptions {
  resource: ProtectedBy | null;
  access: Access;
  dynamodb: readonly DynamoDbAction[];
  hashesPasswords?: boolean;
  assets?: readonly string[];
  /**
   * A create that refuses an Idempotency-Key (400), and why: its answer holds a secret shown once,
   * which a replay would show again.
   */
  refusesIdempotencyKey?: string;
  writesUnder?: readonly string[];
  sealsSecrets?: boolean;
}

/**
 * The change feed's partitions (lib/db/feed.ts: its tail, lease and items; lib/db/changes.ts: the
 * pending markers): all that a reader of the feed may write, when it places in the placer's stead.
 */
export const FEED_PARTITIONS = ['CHANGES#FEED', 'CHANGES#FEED#*', 'CHANGES#PENDING#*'] as const;

/**
 * Every protected route counts its caller's requests against the key's quota (lib/api-keys/quota.ts),
 * in items of their own under this prefix: all a read-only route may write.
 */
export const QUOTA_PREFIX = 'QUOTA';
export const QUOTA_PARTITIONS = [`${QUOTA_PREFIX}#*`] as const;

/** Every protected route reads the caller's API key, and counts its request (under QUOTA_PARTITIONS). */
const KEY_LOOKUP: readonly DynamoDbAction[] = ['GetItem'];
const QUOTA_COUNT: readonly DynamoDbAction[] = ['UpdateItem'];
const WRITE_ACTIONS: ReadonlySet<DynamoDbAction> = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);
/** Every create may record its answer under an Idempotency-Key (lib/http/idempotency.ts). */
const IDEMPOTENCY_RECORD: readonly DynamoDbAction[] = ['PutItem', 'UpdateItem', 'DeleteItem'];

/** Argon2id with 19 MiB runs in WebAssembly: more memory buys the CPU that keeps it fast. */
const PASSWORD_MEMORY = 1024;

const route = <const Name extends string, const Path extends string>(
  name: Name,
  method: Method,
  path: Path,
  status: RouteDefinition['status'],
  options: RouteOptions,
): RouteDefinition & { name: Name; path: Path } => {
  const list = options.resource !== null && method === 'GET' && !path.includes('{');
  const idempotent = options.resource !== null && method === 'POST' && options.access === 'CREATE' && !options.refusesIdempotencyKey;
  const dynamodb = [...new Set([...(options.resource ? [...KEY_LOOKUP, ...QUOTA_COUNT] : []), ...(idempotent ? IDEMPOTENCY_RECORD : []), ...options.dynamodb])];
  // A route that writes nowhere else (or only under some partitions) writes its quota's items too.
  const writesElsewhere = [...(idempotent ? IDEMPOTENCY_RECORD : []), ...options.dynamodb].some((action) => WRITE_ACTIONS.has(action));
  const writesUnder = options.resource && (!writesElsewhere || options.writesUnder) ? [...(options.writesUnder ?? []), ...QUOTA_PARTITIONS] : options.writesUnder;
  return {
    name,
    method,
    path,
    status,
    permission: options.resource ? { resource: options.resource, access: options.access } : null,
    body: method === 'POST' || method === 'PUT',
    dynamodb,
    hashesPasswords: options.hashesPasswords ?? false,
    memoryMb: options.hashesPasswords ? PASSWORD_MEMORY : 512,
    ...(options.assets ? { assets: options.assets } : {}),
    ...(writesUnder ? { writesUnder } : {}),
    ...(options.refusesIdempotencyKey ? { refusesIdempotencyKey: options.refusesIdempotencyKey } : {}),
    list,
    followed: options.resource === 'change' && list,
    idempotent,
    usesServerSecret: list || idempotent,
    sealsSecrets: options.sealsSecrets ?? false,
  };
};

export const routes = [
  route('health/get', 'GET', '/api', 200, { resource: null, access: 'VIEW', dynamodb: [] }),
  route('openapi/get', 'GET', '/api/openapi.json', 200, { resource: null, access: 'VIEW', dynamodb: [] }),
  // The API reference as a page: Swagger UI, served by the API itself (no CDN).
  route('docs/get', 'GET', '/api/docs', 200, {
    resource: null,
    access: 'VIEW',
    dynamodb: [],
    assets: ['node_modules/swagger-ui-dist/swagger-ui-bundle.js', 'node_modules/swagger-ui-dist/swagger-ui.css'],
  }),
  // The deployed API's catch-all, so that it answers 404/405 as problem+json like the local router.
  route('not-found/any', 'ANY', '$default', 404, { resource: null, access: 'VIEW', dynamodb: [] }),

  route('tax-rules/list', 'GET', '/api/tax-rules', 200, { resource: 'tax', access: 'VIEW', dynamodb: ['Query', 'BatchGetItem'] }),
  route('tax-rules/get', 'GET', '/api/tax-rules/{entityId}', 200, { resource: 'tax', access: 'VIEW', dynamodb: ['GetItem'] }),
  route('tax-rules/create', 'POST', '/api/tax-rules', 201, { resource: 'tax', access: 'CREATE', dynamodb: ['UpdateItem', 'PutItem'] }),
  // Making a rule the default reads the former default, whose flag it takes (and records that change).
  route('tax-rules/update', 'PUT', '/api/tax-rules', 201, { resource: 'tax', access: 'UPDATE', dynamodb: ['UpdateItem', 'PutItem'] }),
  route('tax-rules/delete', 'DELETE', '/api/tax-rules/{entityId}', 204, { resource: 'tax', access: 'DELETE', dynamodb: ['Query', 'DeleteItem', 'UpdateItem', 'PutItem'] }),

  route('customers/list', 'GET', '/api/customers', 200, { resource: 'customer', access: 'VIEW', dynamodb: ['Query'] }),
  route('customers/get', 'GET', '/api/customers/{entityId}', 200, { resource: 'customer', access: 'VIEW', dynamodb: ['GetItem'] }),
  route('customers/create', 'POST', '/api/customers', 201, { resource: 'customer', access: 'CREATE', dynamodb: ['UpdateItem', 'PutItem'], hashesPasswords: true }),
  route('customers/update', 'PUT', '/api/customers', 201, { resource: 'customer', access: 'UPDATE', dynamodb: ['PutItem', 'UpdateItem', 'DeleteItem'], hashesPasswords: true }),
  route('customers/delete', 'DELETE', '/api/customers/{entityId}', 204, { resource: 'customer', access: 'DELETE', dynamodb: ['DeleteItem', 'UpdateItem', 'PutItem'] }),
  route('customers/check-login', 'POST', '/api/customers/checkLogin', 200, {
    resource: 'customer',
    access: 'VIEW',
    // The email's lock; the attempt reserved (PutItem/UpdateItem) and given back; a hash upgrade.
    dynamodb: ['GetItem', 'UpdateItem', 'PutItem'],
    hashesPasswords: true,
  }),

  route('products/list', 'GET', '/api/products', 200, { resource: 'product', access: 'VIEW', dynamodb: ['Query', 'GetItem', 'BatchGetItem'] }),
  route('products/get', 'GET', '/api/products/{productId}', 200, { resource: 'product', access: 'VIEW', dynamodb: ['BatchGetItem'] }),
  route('products/create', 'POST', '/api/products', 201, {
    resource: 'product',
    access: 'CREATE',
    dynamodb: ['BatchGetItem', 'UpdateItem', 'PutItem', 'ConditionCheckItem'],
  }),
  route('products/update', 'PUT', '/api/products/{productId}', 204, {
    resource: 'product',
    access: 'UPDATE',
    dynamodb: ['PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'],
  }),
  route('products/delete', 'DELETE', '/api/products/{productId}', 204, { resource: 'product', access: 'DELETE', dynamodb: ['DeleteItem', 'UpdateItem', 'PutItem'] }),

  // The change feed places what is pending before it reads (lib/db/feed.ts): a transaction of Put, Update and Delete.
  route('changes/list', 'GET', '/api/changes', 200, {
    resource: 'change',
    access: 'VIEW',
    dynamodb: ['Query', 'GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    writesUnder: FEED_PARTITIONS,
  }),

  // Webhook subscriptions (CONTRACT §12), superadmin only. A subscription starts after the feed's tail.
  route('webhooks/list', 'GET', '/api/webhooks', 200, { resource: 'webhook', access: 'VIEW', dynamodb: ['Query'] }),
  route('webhooks/get', 'GET', '/api/webhooks/{webhookId}', 200, { resource: 'webhook', access: 'VIEW', dynamodb: ['GetItem'] }),
  // A subscription starts after every change committed before it: its create places what is pending. It seals the new secret.
  route('webhooks/create', 'POST', '/api/webhooks', 201, {
    resource: 'webhook',
    access: 'CREATE',
    dynamodb: ['Query', 'UpdateItem', 'PutItem', 'DeleteItem'],
    sealsSecrets: true,
    refusesIdempotencyKey:
      "is not taken here: the answer holds the subscription's secret, shown once, which a replay would show again; after a 503, list the subscriptions (GET /api/webhooks) to see whether it was made",
  }),
  route('webhooks/update', 'PUT', '/api/webhooks/{webhookId}', 200, { resource: 'webhook', access: 'UPDATE', dynamodb: ['UpdateItem'] }),
  route('webhooks/delete', 'DELETE', '/api/webhooks/{webhookId}', 204, { resource: 'webhook', access: 'DELETE', dynamodb: ['DeleteItem', 'UpdateItem'] }),
  route('webhooks/deliveries', 'GET', '/api/webhooks/{webhookId}/deliveries', 200, { resource: 'webhook', access: 'VIEW', dynamodb: ['Query'] }),
  // Replay reads the feed from the client's cursor (placing what is pending) and queues a job per matching change.
  route('webhooks/replay', 'POST', '/api/webhooks/{webhookId}/replay', 200, {
    resource: 'webhook',
    access: 'UPDATE',
    dynamodb: ['Query', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
  }),
] as const satisfies readonly RouteDefinition[];

export type RouteName = (typeof routes)[number]['name'];

/** The `{param}` names of a path template. */
type ParamNames<Path extends string> = Path extends `${string}{${infer Param}}${infer Rest}` ? Param | ParamNames<Rest> : never;

/** A route's path parameters, as the ids they are (checked to be positive integers before use). */
export type PathParams<Name extends RouteName> = { [Param in ParamNames<Extract<(typeof routes)[number], { name: Name }>['path']>]: number };

export function routeByName(name: RouteName): RouteDefinition {
  const found = routes.find((r) => r.name === name);
  if (!found) throw new Error(`unknown route ${name}`);
  return found;
}

/** Path of the handler module (relative to the repository root) that serves a route. */
export const handlerFile = (r: RouteDefinition): string => `functions/${r.name}.ts`;
