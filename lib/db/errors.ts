/**
 * The data layer's own errors. They say what happened to the data, in its terms; the HTTP edge
 * (lib/http/errors.ts) decides what each means to a client.
 */

/** The record does not exist (or no longer does). */
export class NotFound extends Error {
  constructor(readonly what: string) {
    super(`${what} not found`);
    this.name = 'NotFound';
  }
}

/** The write would break a rule of the data: a value held twice, a record still in use... */
export class Conflict extends Error {
  /** The field whose value conflicts, when one does. */
  readonly field: string | undefined;

  constructor(detail: string, field?: string) {
    super(detail);
    this.name = 'Conflict';
    this.field = field;
  }
}

/** What was asked for is no longer kept (changes past their retention). */
export class Gone extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'Gone';
  }
}

/** The record is not at the version the caller expected: it changed since the caller read it. */
export class VersionMismatch extends Error {
  constructor(
    readonly what: string,
    readonly expected: number,
  ) {
    super(`the ${what} has changed since version ${expected}`);
    this.name = 'VersionMismatch';
  }
}

/** DynamoDB is throttled, failing or out of reach: the same request may succeed later. */
export class Unavailable extends Error {
  constructor(cause: unknown) {
    super('the database is busy or unavailable', { cause });
    this.name = 'Unavailable';
  }
}

/**
 * The request's time budget ran out before DynamoDB answered, or before the request even asked: the
 * cause may be the database or this process (CPU spent on password hashes, say), and says which.
 */
export class OutOfTime extends Unavailable {
  constructor(cause: unknown) {
    super(cause);
    this.message = 'the request ran out of its time budget';
    this.name = 'OutOfTime';
  }
}

/**
 * The search index is being built from the table (new, lost, or rebuilt for a new form of its
 * documents): what it answers now would be part of the list, so a list it serves waits for it.
 */
export class IndexBuilding extends Unavailable {
  constructor() {
    super(undefined);
    this.message = 'the search index is being built from the table';
    this.name = 'IndexBuilding';
  }
}

/** The search index (OpenSearch) is throttled, failing or out of reach past its retries: a list it serves may answer later. */
export class IndexUnavailable extends Unavailable {
  constructor(cause: unknown) {
    super(cause);
    this.message = 'the search index is busy or unavailable';
    this.name = 'IndexUnavailable';
  }
}

/** DynamoDB refused the write itself (an item over 400 KB, an index key over its size): it never will succeed. */
export class Refused extends Error {
  constructor(reason: string, cause: unknown) {
    super(`DynamoDB refused the write: ${reason}`, { cause });
    this.name = 'Refused';
  }
}

/** The record would outgrow what one DynamoDB item holds: nothing was written, and the same write never will be. */
export class TooLarge extends Error {
  constructor(
    readonly what: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`the ${what} would take ${bytes} bytes, more than one record holds (${limit} bytes, all its locales together)`);
    this.name = 'TooLarge';
  }
}

/** A list position that is not one of this list's (a cursor made elsewhere). */
export class InvalidPosition extends Error {
  constructor() {
    super('not a position of this list');
    this.name = 'InvalidPosition';
  }
}

/**
 * Another transaction touched the same items at the same time: read again and retry
 * (transactions.ts `retryOnConflict`). It never leaves the data layer's callers' retry loops.
 */
export class WriteConflict extends Error {
  /** The steps of the transaction another write had in hand, when DynamoDB named them (its cancellation reasons). */
  constructor(readonly steps: readonly number[] = []) {
    super('concurrent write conflict');
    this.name = 'WriteConflict';
  }
}

/**
 * The record stayed busy with other writes past the retries a request may make (a row updated by
 * many clients at once): nothing was written, and the same write may succeed later. Not a
 * Conflict: the user competed with nobody's data, only with its timing.
 */
export class Contended extends Unavailable {
  constructor() {
    super(new WriteConflict());
    this.message = 'the record is busy with other writes';
    this.name = 'Contended';
  }
}

/** DynamoDB's refusals for load: as SDK error names, and as the reason codes of a cancelled transaction. */
const THROTTLING = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'ThrottlingError', 'ProvisionedThroughputExceeded']);

/** Whether an SDK error, or a cancelled transaction's reason code, says DynamoDB throttled the call. */
export const isThrottled = (nameOrCode: string | undefined): boolean => nameOrCode !== undefined && THROTTLING.has(nameOrCode);

const UNAVAILABLE = new Set([
  ...THROTTLING,
  'InternalServerError',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'LimitExceededException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  // A call given up when the request's budget ran out (client.ts `withDeadline`).
  'AbortError',
]);

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/** Whether an AWS SDK error means "DynamoDB is throttled or unavailable, retry later". */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, $fault } = error as { code?: string; $fault?: string };
  // A fault on DynamoDB's side (the SDK's `$fault`), whatever its name, is worth a retry later.
  return UNAVAILABLE.has(error.name) || (code !== undefined && NETWORK_CODES.has(code)) || $fault === 'server';
}

/**
 * A list that only the search index answers (its `argument`, or its order), in a deployment without
 * one: a client error, since the same list without it is answered.
 */
export class NeedsSearchIndex extends Error {
  constructor(readonly argument: string) {
    super('is answered by the search index, which this deployment does not have: deploy with `-c search=opensearch` (npm start always has one)');
    this.name = 'NeedsSearchIndex';
  }
}
