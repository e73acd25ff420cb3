/**
 * The kinds of problem the API answers (docs/conventions.md; RFC 9457's `type`), each with its status and a
 * stable URI reference: the API's own reference page, `/api/docs#problem-<kind>`, the same in every
 * deployment (the quota's is the type IANA registers). lib/openapi/problem-docs.ts says what each
 * means, for the Problem schema of `GET /api/openapi.json` and the docs page: a client tells a busy
 * record from DynamoDB being down by `type`, not by prose. Every function bundles this list, so it
 * holds no prose. A problem that names no kind takes its status's: `about:blank` is never answered.
 */
export const QUOTA_EXCEEDED_TYPE = 'https://iana.org/assignments/http-problem-types#quota-exceeded';

export const PROBLEM_KINDS = {
  'invalid-input': 400,
  unauthorized: 401,
  forbidden: 403,
  'not-found': 404,
  'method-not-allowed': 405,
  conflict: 409,
  'cursor-expired': 410,
  'precondition-failed': 412,
  'too-large': 413,
  'unsupported-media-type': 415,
  'not-applied': 424,
  'too-many-attempts': 429,
  'quota-exceeded': 429,
  'internal-error': 500,
  'server-misconfigured': 500,
  'record-busy': 503,
  'database-unavailable': 503,
  'out-of-time': 503,
  'index-building': 503,
  'index-unavailable': 503,
  overloaded: 503,
} as const satisfies Record<string, number>;

export type ProblemKind = keyof typeof PROBLEM_KINDS;

/** The kind a status means when the problem names none. */
const BY_STATUS: Readonly<Record<number, ProblemKind>> = {
  400: 'invalid-input',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not-found',
  405: 'method-not-allowed',
  409: 'conflict',
  410: 'cursor-expired',
  412: 'precondition-failed',
  413: 'too-large',
  415: 'unsupported-media-type',
  424: 'not-applied',
  429: 'too-many-attempts',
  503: 'database-unavailable',
};

/** A kind's `type`. */
export const problemType = (kind: ProblemKind): string => (kind === 'quota-exceeded' ? QUOTA_EXCEEDED_TYPE : `/api/docs#problem-${kind}`);

/** The kind of a problem of `status` that names none. */
export const kindOfStatus = (status: number): ProblemKind => BY_STATUS[status] ?? 'internal-error';
