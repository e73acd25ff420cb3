import { beforeAll, describe, expect, it } from 'vitest';
import { GRANTS, routes, type RouteDefinition } from '../lib/routes.js';
import { signBody } from '../lib/api-keys/signature.js';
import { createApiKey, revokeApiKey, type Grants } from '../lib/api-keys/index.js';
import { call, keyWith, type Credentials } from './support/api.js';
import { customerInput } from './support/fixtures.js';

// Revocation must show at once here: no key cache in this file.
process.env.STORE_API_KEY_CACHE_SECONDS = '0';

const allRoutes: readonly RouteDefinition[] = routes;
const protectedRoutes = allRoutes.filter((r): r is RouteDefinition & { permission: NonNullable<RouteDefinition['permission']> } => r.permission !== null);
// An id that exists nowhere: the matrix must not change what it runs against.
const urlOf = (route: RouteDefinition) => route.path.replace(/\{\w+\}/, '987654321');
/** A body for the route: a batch names its op (its grant is the op's), else any object. */
const bodyOf = (route: RouteDefinition) => (route.name.endsWith('/batch') ? { rows: [{ op: 'create' }] } : route.body ? {} : undefined);

type ProtectedRoute = (typeof protectedRoutes)[number];

/**
 * Every access but the route's own, on every resource: a key that may do anything else. The change
 * feed takes VIEW of any resource: its key lacks VIEW everywhere.
 */
function everythingBut(route: ProtectedRoute): Grants {
  const all = ['VIEW', 'CREATE', 'UPDATE', 'DELETE'] as const;
  const lacks = (resource: string) => route.permission.resource === 'change' || resource === route.permission.resource;
  return Object.fromEntries(GRANTS.map((resource) => [resource, lacks(resource) ? all.filter((a) => a !== route.permission.access) : [...all]]));
}

/** The one grant a route needs (for the change feed, VIEW of one resource is enough). */
const onlyGrantOf = (route: ProtectedRoute): Grants => ({ [route.permission.resource === 'change' ? 'product' : route.permission.resource]: [route.permission.access] });

describe('authentication and permissions of every route', () => {
  let revoked: Credentials;
  beforeAll(async () => {
    revoked = await createApiKey({ label: 'revoked', superadmin: true });
    await revokeApiKey(revoked.apiKey);
  });

  describe.each(protectedRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', (_, route) => {
    const request = (options: Parameters<typeof call>[2]) => call(route.method, urlOf(route), { body: bodyOf(route), ...options });

    it('answers 401 with WWW-Authenticate: Token without a key, with an unknown key and with a revoked key', async () => {
      for (const response of [await request({ as: null }), await request({ as: { apiKey: 'ABCDEF0123456789ABCDEF012', secureKey: '00'.repeat(24) } }), await request({ as: revoked })]) {
        expect(response.status).toBe(401);
        expect(response.headers['www-authenticate']).toBe('Token');
        expect(response.headers['content-type']).toBe('application/problem+json');
      }
    });

    it('answers 412 without sign and with a wrong sign', async () => {
      expect((await request({ sign: null })).status).toBe(412);
      const wrong = await request({ sign: 'a'.repeat(40) });
      expect(wrong.status).toBe(412);
      // It says what is signed, and with what key, never the value expected.
      expect(wrong.body.detail).toContain('HMAC-SHA1 of the raw request body exactly as sent');
      expect(wrong.body.detail).toContain('hex-decoded secure key');
      expect(wrong.text).not.toMatch(/[0-9a-f]{40}/);
    });

    it("answers 403 when the key's profile lacks the access, and lets the right access through (the reference data: any key)", async () => {
      if (route.permission.resource === 'reference') {
        expect([401, 403, 412]).not.toContain((await request({ as: await keyWith({}) })).status);
        return;
      }
      expect((await request({ as: await keyWith(everythingBut(route)) })).status).toBe(403);
      const allowed = await request({ as: await keyWith(onlyGrantOf(route)) });
      expect([401, 403, 412]).not.toContain(allowed.status);
    });
  });

  it('leaves GET /api open', async () => {
    expect((await call('GET', '/api', { as: null })).status).toBe(200);
  });
});

describe('request signatures', () => {
  it('match the worked examples of the contract', () => {
    const secureKey = '0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF';
    expect(signBody(secureKey, '')).toBe('a851ea4129b3183a82121e12994c959116deef15');
    expect(signBody(secureKey, '{"email":"test@thelia.net","password":"azerty"}')).toBe('8d80e5fdb7f3e7008cd9a109d83d88aba70fe0b4');
  });

  it('cover the raw bytes: a body altered by one byte after signing is refused (412)', async () => {
    const key = await keyWith({ customer: ['CREATE'] });
    const body = JSON.stringify(customerInput());
    const sign = signBody(key.secureKey, body);
    const altered = body.replace('Paris', 'Parir');
    expect((await call('POST', '/api/customers', { as: key, body: altered, sign })).status).toBe(412);
    expect((await call('POST', '/api/customers', { as: key, body, sign })).status).toBe(201);
  });

  it('verify PHP-style bodies with escaped slashes and \\u escapes, and raw UTF-8', async () => {
    const key = await keyWith({ customer: ['CREATE'] });
    const php = JSON.stringify(customerInput({ city: 'Saint-\\u00c9tienne', address1: '1\\/3 rue de l\\u2019\\u00c9glise' })).replace(/\\\\/g, '\\');
    const created = await call('POST', '/api/customers', { as: key, body: php });
    expect(created.status).toBe(201);
    expect(created.body[0]).toMatchObject({ CITY: 'Saint-Étienne', ADDRESS1: '1/3 rue de l’Église' });
    const utf8 = JSON.stringify(customerInput({ city: 'Zürich ☃' }));
    expect((await call('POST', '/api/customers', { as: key, body: utf8 })).status).toBe(201);
  });

  it('accept the Token scheme in any case', async () => {
    const key = await keyWith({ tax: ['VIEW'] });
    expect((await call('GET', '/api/tax-rules/1', { as: key, headers: { authorization: `tOkEn ${key.apiKey}` } })).status).toBe(200);
  });
});
