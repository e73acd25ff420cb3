/**
 * Problem types (issue 45, point 4): each kind of problem the API answers has its own stable URI,
 * the domain's and the data layer's errors map to theirs (the three 503s apart), and the API
 * document lists every one with what it means. `about:blank` is never answered.
 */
import { describe, expect, it } from 'vitest';
import { Contended, NotFound, OutOfTime, Unavailable, VersionMismatch, WriteConflict } from '../../lib/db/errors.js';
import { InvalidInput, SecretMissing } from '../../lib/errors.js';
import { toProblem } from '../../lib/http/errors.js';
import { HttpProblem } from '../../lib/http/problem.js';
import { PROBLEM_KINDS, problemType, QUOTA_EXCEEDED_TYPE, type ProblemKind } from '../../lib/http/problem-types.js';
import { buildDocument } from '../../lib/openapi/generate.js';

const kinds = Object.keys(PROBLEM_KINDS) as ProblemKind[];

describe('problem types', () => {
  it('are one URI a kind, the quota IANA’s, none about:blank', () => {
    const types = kinds.map(problemType);
    expect(new Set(types).size).toBe(kinds.length);
    expect(types).not.toContain('about:blank');
    expect(problemType('quota-exceeded')).toBe(QUOTA_EXCEEDED_TYPE);
    expect(problemType('record-busy')).toBe('/api/docs#problem-record-busy');
  });

  it('are those of what was thrown, the three 503s apart, else of the status', () => {
    const typeOf = (error: unknown) => toProblem(error).body.type;
    expect(typeOf(new Contended())).toBe(problemType('record-busy'));
    expect(typeOf(new WriteConflict())).toBe(problemType('record-busy'));
    expect(typeOf(new Unavailable(new Error('down')))).toBe(problemType('database-unavailable'));
    expect(typeOf(new OutOfTime(new Error('late')))).toBe(problemType('out-of-time'));
    expect(typeOf(new InvalidInput([{ field: 'price', message: 'is not a price' }]))).toBe(problemType('invalid-input'));
    expect(typeOf(new NotFound('product'))).toBe(problemType('not-found'));
    expect(typeOf(new VersionMismatch('product', 2))).toBe(problemType('precondition-failed'));
    expect(typeOf(new SecretMissing())).toBe(problemType('server-misconfigured'));
    expect(typeOf(new TypeError('a bug'))).toBe(problemType('internal-error'));
    for (const status of [400, 401, 403, 404, 405, 409, 410, 412, 413, 415, 424, 429, 500, 503]) {
      const { type } = new HttpProblem(status, 'said').body;
      expect(kinds.map(problemType), String(status)).toContain(type);
      expect(PROBLEM_KINDS[kinds.find((kind) => problemType(kind) === type)!]).toBe(status);
    }
  });

  it('are listed in the API document, each with its status and meaning', async () => {
    const document = (await buildDocument()) as { components: { schemas: { Problem: { properties: { type: { enum: string[]; description: string } } } } } };
    const { enum: listed, description } = document.components.schemas.Problem.properties.type;
    expect(listed).toEqual(kinds.map(problemType));
    for (const kind of kinds) expect(description).toContain(`<a id="problem-${kind}"></a>\`${problemType(kind)}\` (${PROBLEM_KINDS[kind]}): `);
  });
});
