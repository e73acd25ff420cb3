/**
 * What each kind of problem means (lib/http/problem-types.ts), for the API reference: a record
 * over every kind, so that a kind added there is documented here or the type check fails. Only the
 * OpenAPI document imports it: no function bundles this prose.
 */
import type { ProblemKind } from '../http/problem-types.js';

export const PROBLEM_MEANINGS: Readonly<Record<ProblemKind, string>> = {
  'invalid-input': 'a field, a query parameter, a header or the body is refused; `errors` names each (`rows[3].price` in a batch)',
  unauthorized: 'no API key, or an unknown or revoked one (`WWW-Authenticate: Token`)',
  forbidden: "the key's profile does not grant this access",
  'not-found': 'no such route, or no record with this id',
  'method-not-allowed': 'the path takes other methods (`Allow` lists them)',
  conflict: 'a value another record holds (email, ref), a record still in use, or an Idempotency-Key used with another request or still running',
  'cursor-expired': "a cursor older than the changes' retention: read the lists again",
  'precondition-failed': "`sign` missing or wrong, or an If-Match version that is not the record's",
  'too-large': 'a body over 64 KiB, or a record that would pass what one DynamoDB item holds',
  'unsupported-media-type': 'a body that is not JSON in UTF-8',
  'not-applied': 'a row of an atomic batch not applied because another row failed',
  'too-many-attempts': 'too many failed login checks for one email: wait `Retry-After`',
  'quota-exceeded': "the API key's request quota is used up: wait `Retry-After` (IANA's registered type)",
  'internal-error': 'a bug: the log has its cause, the answer never does',
  'server-misconfigured': "the deployment's secret is missing, or a stored secret was sealed under another one: its operator must act",
  'record-busy': "the record is busy with other writes past this request's retries: retry after `Retry-After` (with its Idempotency-Key for a create)",
  'database-unavailable': "DynamoDB throttled, did not answer, or is out of reach: retry after `Retry-After`; a write's outcome is unknown (retry it with its Idempotency-Key)",
  'out-of-time': "the request's time budget ran out before it finished (a batch row: not applied): retry after `Retry-After`",
  'index-building': 'the search index is being built from the table (new, lost, or of a former form): a list it serves answers once it is whole; retry after `Retry-After`',
  'index-unavailable': 'the search index a list is served from (OpenSearch) is throttled, failing or out of reach, past the retries the request had time for; retry after `Retry-After`',
  overloaded: "too many requests of this route are running (the local server's password hashing): retry after `Retry-After`",
};
