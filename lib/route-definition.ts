/**
 * What a route is: its HTTP contract (method, path, success status, the grant its caller needs, how
 * it pages and whether it takes an Idempotency-Key) and, apart, what deploying it needs
 * (`deployment`: its DynamoDB actions and partitions, memory, secrets, assets), made from a few
 * options by `route`. The routes
 * themselves are declared with their resources (resources.ts); routes.ts is their table.
 */
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'ANY';
export const ACCESSES = ['VIEW', 'CREATE', 'UPDATE', 'DELETE'] as const;
/**
 * What a route may be protected by, as its resource declares it (resources.ts): a resource's grant (a
 * key of an API key's `grants`); `change`, VIEW of any resource (the changes of which it then sees);
 * `webhook`, a superadmin key; `reference`, any key (the reference data is the same for every caller).
 */
export type ProtectedBy = string;
export type Access = (typeof ACCESSES)[number];

/** The DynamoDB IAM actions a route's function may use (transactions are authorized per item action). */
export type DynamoDbAction = 'GetItem' | 'BatchGetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem';

export interface Permission {
  readonly resource: ProtectedBy;
  readonly access: Access;
}

/**
 * What a route's function needs where it is deployed, apart from what the route means on the wire:
 * its permissions on the table, its memory, its secrets, the files beside its bundle.
 */
export interface RouteDeployment {
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
  /** Whether the route needs the server secret: lists sign cursors, creates fingerprint Idempotency-Keys. */
  readonly usesServerSecret: boolean;
  /** Whether it seals a new secret (lib/sealed-secrets.ts); every protected route opens API keys' secure keys. */
  readonly sealsSecrets: boolean;
  /** Whether it asks the search index (a list with loop arguments, docs/lists.md): it reads the collection's indexes, where the stack has one. */
  readonly searches: boolean;
}

/** The HTTP contract of a route (what clients, the router and the API reference see), and its deployment. */
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
  /** A protected GET of a collection: it pages (limit, offset, cursor) and answers rows with list headers. */
  readonly list: boolean;
  /** A list followed by its cursor (the change feed): every page, an empty one too, gives one; it takes `cursor=now` and may answer 410. */
  readonly followed: boolean;
  /** Not a list, but several rows: a write of several records (docs/api.md's entries), a delivery log. */
  readonly many: boolean;
  /** A create: it takes an Idempotency-Key (checkLogin, a read though a POST, does not). */
  readonly idempotent: boolean;
  /** Why a create refuses an Idempotency-Key (400), when it does: said in the answer and the reference. */
  readonly refusesIdempotencyKey?: string;
  readonly deployment: RouteDeployment;
}

interface RouteOptions {
  resource: ProtectedBy | null;
  access: Access;
  dynamodb: readonly DynamoDbAction[];
  hashesPasswords?: boolean;
  /** Lambda memory, when the route needs more than its kind gets (512 MB; 1 024 MB for password routes). */
  memoryMb?: number;
  assets?: readonly string[];
  /**
   * A create that refuses an Idempotency-Key (400), and why: its answer holds a secret shown once,
   * which a replay would show again.
   */
  refusesIdempotencyKey?: string;
  writesUnder?: readonly string[];
  sealsSecrets?: boolean;
  searches?: boolean;
  /** A route that is no list and answers several rows (a write of several records, a log), not one. */
  many?: boolean;
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

export const route = <const Name extends string, const Path extends string>(
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
    ...(options.refusesIdempotencyKey ? { refusesIdempotencyKey: options.refusesIdempotencyKey } : {}),
    list,
    followed: options.resource === 'change' && list,
    many: options.many ?? false,
    idempotent,
    deployment: {
      dynamodb,
      hashesPasswords: options.hashesPasswords ?? false,
      memoryMb: options.memoryMb ?? (options.hashesPasswords ? PASSWORD_MEMORY : 512),
      ...(options.assets ? { assets: options.assets } : {}),
      ...(writesUnder ? { writesUnder } : {}),
      usesServerSecret: list || idempotent,
      sealsSecrets: options.sealsSecrets ?? false,
      searches: options.searches ?? false,
    },
  };
};
