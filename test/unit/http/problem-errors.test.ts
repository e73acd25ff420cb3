/** lib/http/errors.ts `problemErrors`: whatever was thrown leaves as problem+json (docs/conventions.md), a 500 saying nothing of its cause. */
import { describe, expect, it } from 'vitest';
import { Conflict, NotFound, WriteConflict } from '../../../lib/db/errors.js';
import { invalidField } from '../../../lib/errors.js';
import { problemErrors } from '../../../lib/http/errors.js';
import { HttpProblem } from '../../../lib/http/problem.js';
import { useLogWriter } from '../../../lib/log.js';
import { httpRequest } from '../../support/http-request.js';

const answered = async (error: unknown) => {
  const request = httpRequest();
  request.error = error as Error;
  await problemErrors().onError?.(request);
  return { status: request.response?.statusCode, headers: request.response?.headers, body: JSON.parse(String(request.response?.body)) };
};

describe('problemErrors', () => {
  it("answers an HttpProblem as itself, in problem+json with Thelia's error key beside the detail", async () => {
    expect(await answered(new HttpProblem(412, 'the record changed since (If-Match)'))).toEqual({
      status: 412,
      headers: { 'Content-Type': 'application/problem+json' },
      body: { type: '/api/docs#problem-precondition-failed', title: 'Precondition Failed', status: 412, detail: 'the record changed since (If-Match)', error: 'the record changed since (If-Match)' },
    });
  });

  it("answers the domain's and the data layer's errors by what they mean, each field named", async () => {
    expect(await answered(invalidField('price', 'must be a decimal'))).toMatchObject({ status: 400, body: { errors: [{ field: 'price', message: 'must be a decimal' }] } });
    expect(await answered(new NotFound('product'))).toMatchObject({ status: 404 });
    expect(await answered(new Conflict('a product already has this ref', 'ref'))).toMatchObject({ status: 409, body: { errors: [{ field: 'ref' }] } });
    expect(await answered(new WriteConflict())).toMatchObject({ status: 503, headers: { 'Retry-After': '1' }, body: { type: '/api/docs#problem-record-busy' } });
  });

  it('answers anything else with a 500 that says nothing of it, and logs its name and message for the operator', async () => {
    const lines: string[] = [];
    useLogWriter((level, message, fields) => lines.push(JSON.stringify({ level, message, ...fields })));
    try {
      const answer = await answered(new TypeError('cannot read secret-looking-detail of undefined'));
      expect(answer).toMatchObject({ status: 500, body: { detail: 'internal error' } });
      expect(JSON.stringify(answer)).not.toContain('secret-looking-detail');
    } finally {
      useLogWriter(undefined);
    }
    expect(lines.join('\n')).toContain('"name":"TypeError"');
  });
});
