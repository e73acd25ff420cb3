/**
 * Turns anything thrown by a handler or a middleware into a problem+json response (docs/conventions.md):
 * HttpProblem as it is; the domain's and the data layer's errors by what they mean (one table,
 * PROBLEMS); middy's
 * body-parser errors as 415/400; and everything else as a 500 whose body says nothing of the cause.
 */
import {
  Conflict,
  Contended,
  Gone,
  IndexBuilding,
  IndexUnavailable,
  InvalidPosition,
  NeedsSearchIndex,
  NotFound,
  OutOfTime,
  TooLarge,
  Unavailable,
  VersionMismatch,
  WriteConflict,
} from '../db/errors.js';
import { DependencyUnavailable, Forbidden, InvalidInput, SealedSecretUnreadable, SecretMissing, TooManyAttempts } from '../errors.js';
import { log } from '../log.js';
import { HttpProblem } from './problem.js';
import type { HttpMiddleware, HttpResponse } from './types.js';

/** How long a client waits before it tries again after a 503 (docs/conventions.md): said here only. */
export const RETRY_AFTER_SECONDS = 1;
const retryLater = { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } };

export const badCursor = () => new InvalidInput([{ field: 'cursor', message: 'is not a cursor of this list, order and filter' }]);

type ErrorClass<E extends Error> = abstract new (...args: never[]) => E;

/** Error classes, and the problem their errors answer with. */
interface ProblemOf {
  readonly errors: ReadonlyArray<ErrorClass<Error>>;
  readonly problem: (error: never) => HttpProblem;
}
const answer = <E extends Error>(errors: ErrorClass<E> | ReadonlyArray<ErrorClass<E>>, problem: (error: E) => HttpProblem): ProblemOf => ({ errors: [errors].flat(), problem });

/** What the domain's and the data layer's errors answer, in one table: the first entry an error is of a class of. */
const PROBLEMS: readonly ProblemOf[] = [
  answer(HttpProblem, (error) => error),
  answer(InvalidInput, (error) => new HttpProblem(400, error.message, { errors: error.errors })),
  answer(InvalidPosition, () => toProblem(badCursor())),
  answer(NeedsSearchIndex, (error) => toProblem(new InvalidInput([{ field: error.argument, message: error.message }]))),
  answer(NotFound, (error) => new HttpProblem(404, error.message)),
  answer(Forbidden, (error) => new HttpProblem(403, error.message)),
  answer(Conflict, (error) => new HttpProblem(409, error.message, error.field ? { errors: [{ field: error.field, message: error.message }] } : {})),
  answer(TooLarge, (error) => new HttpProblem(413, error.message)),
  answer(Gone, (error) => new HttpProblem(410, `this cursor is older than the ${error.message}: read the lists again, and follow the changes from GET /api/changes?cursor=now`)),
  answer(VersionMismatch, (error) => new HttpProblem(412, `${error.message} (If-Match)`)),
  answer(TooManyAttempts, (error) => new HttpProblem(429, error.message, { headers: { 'Retry-After': String(error.retryAfterSeconds) } })),
  answer(IndexBuilding, () => new HttpProblem(503, 'the search index is being built from the table: this list answers once it is whole; retry later', { ...retryLater, kind: 'index-building' })),
  answer(IndexUnavailable, () => new HttpProblem(503, 'the search index is busy or unavailable; retry later', { ...retryLater, kind: 'index-unavailable' })),
  answer(OutOfTime, () => new HttpProblem(503, 'the request ran out of its time budget before it could finish; retry later', { ...retryLater, kind: 'out-of-time' })),
  // A write that met other writes of the same items past its retries (or a path without retries):
  // the record is busy, nobody's value is taken; the client retries it (docs/conventions.md).
  answer([Contended, WriteConflict], () => new HttpProblem(503, 'the record is busy with other writes; retry later', { ...retryLater, kind: 'record-busy' })),
  answer([Unavailable, DependencyUnavailable], () => new HttpProblem(503, 'the database is busy or unavailable; retry later', { ...retryLater, kind: 'database-unavailable' })),
  // Faults of the deployment's secrets: a 500 that says which, so that its operator knows where to look (the log has the cause).
  answer(SecretMissing, () => new HttpProblem(500, 'the server has no secret configured (STORE_SECRET or STORE_SECRET_ARN); see its log', { kind: 'server-misconfigured' })),
  answer(
    SealedSecretUnreadable,
    () => new HttpProblem(500, "a stored secret could not be opened with this server's secret: it was sealed under another one; see the server's log", { kind: 'server-misconfigured' }),
  ),
];

export function toProblem(error: unknown): HttpProblem {
  const known = PROBLEMS.find((entry) => entry.errors.some((errorClass) => error instanceof errorClass));
  if (known) return known.problem(error as never);
  const cause = (error as { cause?: { package?: string; data?: unknown } } | undefined)?.cause;
  if (cause?.package === '@middy/http-json-body-parser') {
    if ((error as Error).message === 'Unsupported Media Type') return new HttpProblem(415, 'the body must be JSON (Content-Type: application/json)');
    // The parser refuses what could reach an object's prototype: a member `__proto__`, or `constructor` holding `prototype`.
    const refused = (error as Error).message === 'Forbidden key in JSON body' ? `has a member named ${String(cause.data)}, which no field takes` : undefined;
    return new HttpProblem(400, refused ? `body: ${refused}` : 'the body is not valid JSON', { errors: [{ field: 'body', message: refused ?? 'is not valid JSON' }] });
  }
  return new HttpProblem(500, 'internal error');
}

/** What an error was caused by, by name and code only (`ENOTFOUND`, `TimeoutError`...): never a message, which may quote data. */
function causeOf(error: Error): { cause?: { name: string; code?: string } } {
  const cause = error.cause as { name?: unknown; code?: unknown } | undefined;
  if (!cause || typeof cause.name !== 'string') return {};
  return { cause: { name: cause.name, ...(typeof cause.code === 'string' ? { code: cause.code } : {}) } };
}

export function problemResponse(problem: HttpProblem): HttpResponse {
  return {
    statusCode: problem.status,
    headers: { 'Content-Type': 'application/problem+json', ...problem.headers },
    body: JSON.stringify(problem.body),
  };
}

export const problemErrors = (): HttpMiddleware => ({
  onError: async (request) => {
    const problem = toProblem(request.error);
    if (problem.status >= 500) {
      const error = request.error;
      log('error', 'request failed', {
        status: problem.status,
        route: request.event.routeKey,
        requestId: request.context.awsRequestId,
        error: error instanceof Error ? { name: error.name, message: error.message, ...causeOf(error) } : String(error),
      });
    }
    request.response = problemResponse(problem);
  },
});
