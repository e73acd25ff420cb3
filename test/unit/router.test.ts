import { describe, expect, it } from 'vitest';
import { isPathId } from '../../lib/http/path-ids.js';
import { matchRoute } from '../../lib/http/router.js';
import { HttpProblem } from '../../lib/http/problem.js';

describe('router', () => {
  it('matches routes and their integer ids', () => {
    const match = matchRoute('get', '/api/customers/42');
    expect(match).not.toBeInstanceOf(HttpProblem);
    expect(match).toMatchObject({ route: { name: 'customers/get' }, params: { entityId: '42' } });
    expect(matchRoute('POST', '/api/customers/checkLogin')).toMatchObject({ route: { name: 'customers/check-login' } });
    expect(matchRoute('GET', '/api/openapi.json')).toMatchObject({ route: { name: 'openapi/get' } });
  });

  it('answers 404 for unknown paths and ids that are not positive integers up to 2^53−1', () => {
    for (const path of ['/api/nothing', '/api/customers/0', '/api/customers/-1', '/api/customers/1e3', '/api/customers/9007199254740992', '/api/openapiXjson']) {
      expect((matchRoute('GET', path) as HttpProblem).status, path).toBe(404);
    }
    expect(isPathId('9007199254740991')).toBe(true);
  });

  it('answers 405 with the allowed methods for a known path', () => {
    const problem = matchRoute('PATCH', '/api/products/1') as HttpProblem;
    expect(problem.status).toBe(405);
    expect(problem.headers.Allow).toBe('DELETE, GET, HEAD, PUT');
  });
});
