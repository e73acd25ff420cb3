/**
 * The registry: every resource of the API declared once, with each name the wire, the grants, the
 * change feed and the code need, and its routes. The route table (routes.ts), the grants an API key
 * may hold, the resources changes and webhooks name, the OpenAPI document's rows, the CDK stacks'
 * functions and the architecture test's layers all derive from it. A resource's folder names both
 * its domain module (`lib/<folder>/`) and its handlers (`functions/<folder>/<action>.ts`).
 *
 * A leaf: every Lambda bundles it, so it holds names and route options only, never a schema.
 */
import { present } from './present.js';
import { FEED_PARTITIONS, route, type Access, type DynamoDbAction, type Method, type RouteDefinition } from './route-definition.js';

type RouteOptions = Omit<Parameters<typeof route>[4], 'resource' | 'access'> & { access?: Access };

/** A resource's routes, named `<folder>/<action>` and protected as the resource is. */
type RouteOf<Folder extends string> = <const Action extends string, const Path extends string>(
  action: Action,
  method: Method,
  path: Path,
  status: RouteDefinition['status'],
  options: RouteOptions,
) => RouteDefinition & { name: `${Folder}/${Action}`; path: Path };

interface ResourceDeclaration<Folder extends string, Routes extends readonly RouteDefinition[]> {
  /** What one record is called in prose and errors: `tax rule`. */
  readonly name: string;
  /** `lib/<folder>/` and `functions/<folder>/`, and the path segment of its routes: `tax-rules`. */
  readonly folder: Folder;
  /**
   * What its routes are protected by (route-definition.ts `ProtectedBy`); a grant is also a key of an
   * API key's `grants` (`tax`). `null`: its routes are open.
   */
  readonly protectedBy: string | null;
  /** Whether `protectedBy` is a grant that API keys hold (else a rule of its own: change, webhook, reference). */
  readonly granted?: boolean;
  /** Its name in changes' `RESOURCE`, event names and webhook patterns (`tax-rule`), when its writes record changes. */
  readonly change?: string;
  /** The name of its loop row in the OpenAPI document, exported under it by `lib/<module>/row-schema.ts`. */
  readonly row?: string;
  /** Its domain module, `lib/<module>/`, when it is not `lib/<folder>/` (kinds that share one). */
  readonly module?: string;
  /**
   * The routes stack its functions are deployed in (infra/store-api.ts): CloudFormation holds 500
   * resources a stack, and a route costs a dozen. Default: the first.
   */
  readonly stack?: 'Catalog' | 'Vocabulary';
  readonly routes: Routes;
}

function defineResource<const Folder extends string, const Routes extends readonly RouteDefinition[]>(
  declaration: Omit<ResourceDeclaration<Folder, Routes>, 'routes'> & { routes: (route: RouteOf<Folder>) => Routes },
): ResourceDeclaration<Folder, Routes> {
  const routeOf: RouteOf<Folder> = (action, method, path, status, { access = 'VIEW', ...options }) =>
    route(`${declaration.folder}/${action}` as const, method, path, status, { ...options, access, resource: declaration.protectedBy });
  return { ...declaration, routes: declaration.routes(routeOf) };
}

/** The folder of the resource a route is of: its name is `<folder>/<action>` (routeOf above). */
export const folderOfRoute = (name: string): string => name.slice(0, name.indexOf('/'));

const PUT_UPDATE: readonly DynamoDbAction[] = ['UpdateItem', 'PutItem'];

/**
 * A batch's rows (docs/batches-and-client.md): the create, update and delete of its resource, and the reads they
 * make; its access is each row's own, checked per op (lib/http/batch.ts), CREATE the one it is listed under.
 */
const BATCH = { access: 'CREATE', dynamodb: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'] } as const;

/**
 * A kind of the reference data (docs/api.md), read-only, under the path Thelia's API gives it: its
 * rows are bundled with its functions (lib/reference-rows/), so a request reads only the key.
 */
const referenceData = <const Folder extends string>(name: string, folder: Folder, row: string) =>
  defineResource({
    name,
    folder,
    protectedBy: 'reference',
    row,
    module: 'reference-rows',
    stack: 'Catalog',
    routes: (route) => [route('list', 'GET', `/api/${folder}`, 200, { dynamodb: [] }), route('get', 'GET', `/api/${folder}/{entityId}`, 200, { dynamodb: [] })],
  });

export const registry = [
  defineResource({
    name: 'health check',
    folder: 'health',
    protectedBy: null,
    routes: (route) => [route('get', 'GET', '/api', 200, { dynamodb: [] })],
  }),
  defineResource({
    name: 'API document',
    folder: 'openapi',
    protectedBy: null,
    routes: (route) => [route('get', 'GET', '/api/openapi.json', 200, { dynamodb: [] })],
  }),
  defineResource({
    name: 'API reference page',
    folder: 'docs',
    protectedBy: null,
    // Swagger UI, served by the API itself (no CDN).
    routes: (route) => [route('get', 'GET', '/api/docs', 200, { dynamodb: [], assets: ['node_modules/swagger-ui-dist/swagger-ui-bundle.js', 'node_modules/swagger-ui-dist/swagger-ui.css'] })],
  }),
  defineResource({
    name: 'unknown route',
    folder: 'not-found',
    protectedBy: null,
    // The deployed API's catch-all, so that it answers 404/405 as problem+json like the local router.
    routes: (route) => [route('any', 'ANY', '$default', 404, { dynamodb: [] })],
  }),
  defineResource({
    name: 'tax rule',
    folder: 'tax-rules',
    protectedBy: 'tax',
    granted: true,
    change: 'tax-rule',
    row: 'TaxRuleRow',
    routes: (route) => [
      route('list', 'GET', '/api/tax-rules', 200, { dynamodb: ['Query', 'BatchGetItem'] }),
      route('get', 'GET', '/api/tax-rules/{entityId}', 200, { dynamodb: ['GetItem'] }),
      route('create', 'POST', '/api/tax-rules', 201, { access: 'CREATE', dynamodb: PUT_UPDATE }),
      // Making a rule the default reads the former default, whose flag it takes (and records that change).
      route('update', 'PUT', '/api/tax-rules', 201, { access: 'UPDATE', dynamodb: PUT_UPDATE }),
      route('delete', 'DELETE', '/api/tax-rules/{entityId}', 204, { access: 'DELETE', dynamodb: ['Query', 'DeleteItem', 'UpdateItem', 'PutItem'] }),
    ],
  }),
  defineResource({
    name: 'customer',
    folder: 'customers',
    protectedBy: 'customer',
    granted: true,
    change: 'customer',
    row: 'CustomerRow',
    routes: (route) => [
      route('list', 'GET', '/api/customers', 200, { dynamodb: ['Query', 'GetItem', 'BatchGetItem'], searches: true }),
      route('get', 'GET', '/api/customers/{entityId}', 200, { dynamodb: ['GetItem'] }),
      route('create', 'POST', '/api/customers', 201, { access: 'CREATE', dynamodb: PUT_UPDATE, hashesPasswords: true }),
      route('update', 'PUT', '/api/customers', 201, { access: 'UPDATE', dynamodb: ['PutItem', 'UpdateItem', 'DeleteItem'], hashesPasswords: true }),
      route('delete', 'DELETE', '/api/customers/{entityId}', 204, { access: 'DELETE', dynamodb: ['DeleteItem', 'UpdateItem', 'PutItem'] }),
      // Up to 100 Argon2id hashes, 8 at a time, within the 10 s budget: about two vCPUs (Lambda gives one per 1 769 MB).
      route('batch', 'POST', '/api/customers/batch', 200, { ...BATCH, hashesPasswords: true, memoryMb: 3538 }),
      // The email's lock; the attempt reserved (PutItem/UpdateItem) and given back; a hash upgrade.
      route('check-login', 'POST', '/api/customers/checkLogin', 200, { dynamodb: ['GetItem', 'UpdateItem', 'PutItem'], hashesPasswords: true }),
    ],
  }),
  defineResource({
    name: 'product',
    folder: 'products',
    protectedBy: 'product',
    granted: true,
    change: 'product',
    row: 'ProductRow',
    routes: (route) => [
      route('list', 'GET', '/api/products', 200, { dynamodb: ['Query', 'GetItem', 'BatchGetItem'], searches: true }),
      route('get', 'GET', '/api/products/{productId}', 200, { dynamodb: ['BatchGetItem'] }),
      route('create', 'POST', '/api/products', 201, { access: 'CREATE', dynamodb: ['BatchGetItem', 'UpdateItem', 'PutItem', 'ConditionCheckItem'] }),
      // A new price, currency, weight or ref reads the default sale element that follows it (the stock
      // takes pending in it recorded first: lib/products/stock-takes.ts).
      route('update', 'PUT', '/api/products/{productId}', 204, { access: 'UPDATE', dynamodb: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'] }),
      // With its sale elements, read by the product's index and their count.
      route('delete', 'DELETE', '/api/products/{productId}', 204, { access: 'DELETE', dynamodb: ['Query', 'DeleteItem', 'UpdateItem', 'PutItem'] }),
      route('batch', 'POST', '/api/products/batch', 200, BATCH),
    ],
  }),
  defineResource({
    name: 'category',
    folder: 'categories',
    protectedBy: 'category',
    granted: true,
    change: 'category',
    row: 'CategoryRow',
    stack: 'Catalog',
    routes: (route) => [
      route('list', 'GET', '/api/categories', 200, { dynamodb: ['Query', 'BatchGetItem'], searches: true }),
      route('get', 'GET', '/api/categories/{entityId}', 200, { dynamodb: ['GetItem'] }),
      route('create', 'POST', '/api/categories', 201, { access: 'CREATE', dynamodb: ['Query', 'UpdateItem', 'PutItem'] }),
      route('update', 'PUT', '/api/categories', 201, { access: 'UPDATE', dynamodb: ['Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'] }),
      route('delete', 'DELETE', '/api/categories/{entityId}', 204, { access: 'DELETE', dynamodb: ['Query', 'DeleteItem', 'UpdateItem', 'PutItem'] }),
      route('batch', 'POST', '/api/categories/batch', 200, BATCH),
    ],
  }),
  defineResource({
    name: 'product sale element',
    folder: 'pse',
    // As Thelia's: a product's sale elements are the product's.
    protectedBy: 'product',
    change: 'pse',
    row: 'PseRow',
    stack: 'Catalog',
    routes: (route) => [
      // Every product's sale elements (beyond Thelia): the search index's, but one product's or one id.
      route('list', 'GET', '/api/pse', 200, { dynamodb: ['Query', 'GetItem', 'BatchGetItem'], searches: true }),
      route('product', 'GET', '/api/pse/product/{productId}', 200, { dynamodb: ['Query', 'GetItem', 'BatchGetItem'], many: true }),
      route('get', 'GET', '/api/pse/{pseId}', 200, { dynamodb: ['GetItem', 'BatchGetItem'] }),
      // Entries all or nothing: their products and sale elements read, their counts moved, the products following their defaults.
      route('create', 'POST', '/api/pse', 201, { access: 'CREATE', dynamodb: ['Query', 'GetItem', 'BatchGetItem', 'UpdateItem', 'PutItem', 'DeleteItem', 'ConditionCheckItem'], many: true }),
      route('update', 'PUT', '/api/pse/{pseId}', 201, { access: 'UPDATE', dynamodb: ['Query', 'GetItem', 'BatchGetItem', 'UpdateItem', 'PutItem', 'DeleteItem', 'ConditionCheckItem'], many: true }),
      route('delete', 'DELETE', '/api/pse/{pseId}', 204, { access: 'DELETE', dynamodb: ['Query', 'GetItem', 'BatchGetItem', 'UpdateItem', 'PutItem', 'DeleteItem'] }),
      // An upsert finds its sale element by `reference`: an ERP's stock sync.
      route('batch', 'POST', '/api/pse/batch', 200, BATCH),
    ],
  }),
  defineResource({
    name: 'brand',
    folder: 'brands',
    protectedBy: 'brand',
    granted: true,
    change: 'brand',
    row: 'BrandRow',
    stack: 'Vocabulary',
    routes: (route) => [
      // `product=N` reads the product first.
      route('list', 'GET', '/api/brands', 200, { dynamodb: ['Query', 'GetItem', 'BatchGetItem'], searches: true }),
      route('get', 'GET', '/api/brands/{entityId}', 200, { dynamodb: ['GetItem'] }),
      route('create', 'POST', '/api/brands', 201, { access: 'CREATE', dynamodb: ['Query', 'UpdateItem', 'PutItem'] }),
      route('update', 'PUT', '/api/brands', 201, { access: 'UPDATE', dynamodb: PUT_UPDATE }),
      route('delete', 'DELETE', '/api/brands/{entityId}', 204, { access: 'DELETE', dynamodb: ['Query', 'DeleteItem', 'UpdateItem', 'PutItem'] }),
      route('batch', 'POST', '/api/brands/batch', 200, BATCH),
    ],
  }),
  defineResource({
    name: 'attribute',
    folder: 'attributes',
    protectedBy: 'attribute',
    granted: true,
    change: 'attribute',
    row: 'AttributeRow',
    stack: 'Vocabulary',
    routes: (route) => [
      route('list', 'GET', '/api/attributes', 200, { dynamodb: ['Query', 'GetItem', 'BatchGetItem'], searches: true }),
      route('get', 'GET', '/api/attributes/{entityId}', 200, { dynamodb: ['GetItem'] }),
      route('create', 'POST', '/api/attributes', 201, { access: 'CREATE', dynamodb: ['Query', 'UpdateItem', 'PutItem'] }),
      route('update', 'PUT', '/api/attributes', 201, { access: 'UPDATE', dynamodb: PUT_UPDATE }),
      route('delete', 'DELETE', '/api/attributes/{entityId}', 204, { access: 'DELETE', dynamodb: ['Query', 'DeleteItem', 'UpdateItem', 'PutItem'] }),
      route('batch', 'POST', '/api/attributes/batch', 200, BATCH),
    ],
  }),
  defineResource({
    name: 'attribute value',
    folder: 'attribute-avs',
    // Values are an attribute's: the same grant.
    protectedBy: 'attribute',
    change: 'attribute-av',
    row: 'AttributeAvRow',
    stack: 'Vocabulary',
    routes: (route) => [
      route('list', 'GET', '/api/attribute-avs', 200, { dynamodb: ['Query', 'GetItem', 'BatchGetItem'], searches: true }),
      route('get', 'GET', '/api/attribute-avs/{entityId}', 200, { dynamodb: ['GetItem'] }),
      // Counted into its attribute's values (UpdateItem on condition that the count exists).
      route('create', 'POST', '/api/attribute-avs', 201, { access: 'CREATE', dynamodb: ['Query', 'UpdateItem', 'PutItem'] }),
      route('update', 'PUT', '/api/attribute-avs', 201, { access: 'UPDATE', dynamodb: PUT_UPDATE }),
      route('delete', 'DELETE', '/api/attribute-avs/{entityId}', 204, { access: 'DELETE', dynamodb: ['Query', 'DeleteItem', 'UpdateItem', 'PutItem'] }),
      route('batch', 'POST', '/api/attribute-avs/batch', 200, BATCH),
    ],
  }),
  referenceData('customer title', 'title', 'TitleRow'),
  referenceData('country', 'countries', 'CountryRow'),
  referenceData('currency', 'currencies', 'CurrencyRow'),
  referenceData('language', 'languages', 'LanguageRow'),
  referenceData('tax', 'taxes', 'TaxRow'),
  defineResource({
    name: 'change',
    folder: 'changes',
    protectedBy: 'change',
    row: 'ChangeRow',
    // The change feed places what is pending before it reads (lib/db/feed.ts): a transaction of Put, Update and Delete.
    routes: (route) => [route('list', 'GET', '/api/changes', 200, { dynamodb: ['Query', 'GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], writesUnder: FEED_PARTITIONS })],
  }),
  defineResource({
    name: 'webhook subscription',
    folder: 'webhooks',
    // Webhook subscriptions (docs/changes-events-webhooks.md), superadmin only. A subscription starts after the feed's tail.
    protectedBy: 'webhook',
    row: 'WebhookRow',
    routes: (route) => [
      route('list', 'GET', '/api/webhooks', 200, { dynamodb: ['Query'] }),
      route('get', 'GET', '/api/webhooks/{webhookId}', 200, { dynamodb: ['GetItem'] }),
      // A subscription starts after every change committed before it: its create places what is pending. It seals the new secret.
      route('create', 'POST', '/api/webhooks', 201, {
        access: 'CREATE',
        dynamodb: ['Query', 'UpdateItem', 'PutItem', 'DeleteItem'],
        sealsSecrets: true,
        refusesIdempotencyKey:
          "is not taken here: the answer holds the subscription's secret, shown once, which a replay would show again; after a 503, list the subscriptions (GET /api/webhooks) to see whether it was made",
      }),
      route('update', 'PUT', '/api/webhooks/{webhookId}', 200, { access: 'UPDATE', dynamodb: ['UpdateItem'] }),
      route('delete', 'DELETE', '/api/webhooks/{webhookId}', 204, { access: 'DELETE', dynamodb: ['DeleteItem', 'UpdateItem'] }),
      route('deliveries', 'GET', '/api/webhooks/{webhookId}/deliveries', 200, { dynamodb: ['Query'], many: true }),
      // Replay reads the feed from the client's cursor (placing what is pending) and queues a job per matching change.
      route('replay', 'POST', '/api/webhooks/{webhookId}/replay', 200, { access: 'UPDATE', dynamodb: ['Query', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] }),
    ],
  }),
  defineResource({
    name: 'API key',
    folder: 'api-keys',
    // Made and revoked by `npm run api-key`, never through a route; superadmins see their changes.
    protectedBy: 'webhook',
    change: 'api-key',
    routes: () => [],
  }),
] as const;

type Declared = (typeof registry)[number];

/** Every route, in the registry's order. */
export type DeclaredRoute = Declared['routes'][number];

/** The grants an API key may hold: the resources whose routes are protected by their own grant. */
export const GRANTS = registry.flatMap((resource) => ('granted' in resource && resource.granted && resource.protectedBy ? [resource.protectedBy] : [])) as [string, ...string[]];

/** The resources whose writes record changes, as changes, events and webhooks name them, and the grant that shows them. */
export const CHANGE_RESOURCES = registry.flatMap((resource) => ('change' in resource && resource.change ? [resource.change] : [])) as [string, ...string[]];

/** The grant (or rule) that shows a resource's changes, by its change name. */
export const changeGrant = (change: string): string => present(registry.find((resource) => 'change' in resource && resource.change === change)?.protectedBy, `the grant of the changes of ${change}`);

/** A resource's domain module: `lib/<module>/`, else `lib/<folder>/`. */
export const moduleOf = (resource: Declared): string => ('module' in resource && resource.module) || resource.folder;
