/**
 * lib/http/auth.ts `authorize`: the key's profile has the route's access, else a 403 naming it
 * (docs/api-keys.md). `authenticate` reads the key from the table: test/auth.test.ts runs it on DynamoDB Local.
 */
import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../../../lib/api-keys/index.js';
import { authorize } from '../../../lib/http/auth.js';
import { httpRequest, outcomeOf } from '../../support/http-request.js';

type Profile = Pick<ApiKeyRecord, 'superadmin' | 'grants'>;
const shopSync: Profile = { superadmin: false, grants: { product: ['VIEW', 'UPDATE'], tax: ['VIEW'] } };
const superadmin: Profile = { superadmin: true, grants: {} };
const none: Profile = { superadmin: false, grants: {} };
const key = (apiKey: Profile) => ({ apiKey });

describe('authorize', () => {
  it('lets a key through for the accesses its grants name, and refuses any other with a 403 naming it', async () => {
    expect(await outcomeOf(authorize({ resource: 'product', access: 'UPDATE' }), httpRequest(key(shopSync)))).toBe('passed');
    expect(await outcomeOf(authorize({ resource: 'product', access: 'DELETE' }), httpRequest(key(shopSync)))).toEqual({
      status: 403,
      detail: 'this API key may not DELETE product',
      fields: [],
    });
    expect(await outcomeOf(authorize({ resource: 'customer', access: 'VIEW' }), httpRequest(key(shopSync)))).toMatchObject({ status: 403 });
  });

  it('lets a superadmin do anything; any key read the reference data and the changes of what it may view; only a superadmin the webhooks', async () => {
    expect(await outcomeOf(authorize({ resource: 'customer', access: 'DELETE' }), httpRequest(key(superadmin)))).toBe('passed');
    expect(await outcomeOf(authorize({ resource: 'reference', access: 'VIEW' }), httpRequest(key(none)))).toBe('passed');
    expect(await outcomeOf(authorize({ resource: 'change', access: 'VIEW' }), httpRequest(key(shopSync)))).toBe('passed');
    expect(await outcomeOf(authorize({ resource: 'change', access: 'VIEW' }), httpRequest(key(none)))).toMatchObject({ status: 403 });
    expect(await outcomeOf(authorize({ resource: 'webhook', access: 'VIEW' }), httpRequest(key(shopSync)))).toMatchObject({ status: 403 });
    expect(await outcomeOf(authorize({ resource: 'webhook', access: 'CREATE' }), httpRequest(key(superadmin)))).toBe('passed');
  });
});
