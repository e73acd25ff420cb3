/** `npm run api-key`, as a user runs it, against this file's table (DYNAMODB_ENDPOINT and STORE_TABLE_NAME). */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { call } from './support/api.js';

// A revocation must show at once: no key cache in this file.
process.env.STORE_API_KEY_CACHE_SECONDS = '0';

function apiKeyTool(...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'lib/cli/api-key.ts', ...args], {
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('npm run api-key', () => {
  it('creates a key with grants that works at once, lists it without its secure key, and revokes it', async () => {
    const created = apiKeyTool('create', '--label', 'catalogue sync', '--grant', 'product:VIEW', '--grant', 'tax:view,create');
    expect(created.status, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout) as { apiKey: string; secureKey: string };
    expect(key.apiKey).toMatch(/^[0-9A-F]{25}$/);
    expect(key.secureKey).toMatch(/^[0-9A-F]{48}$/);
    expect((await call('GET', '/api/products', { as: key })).status).toBe(200);
    expect((await call('GET', '/api/customers', { as: key })).status).toBe(403);

    const listed = apiKeyTool('list');
    expect(listed.status).toBe(0);
    expect(listed.stdout).not.toContain(key.secureKey);
    expect(JSON.parse(listed.stdout)).toContainEqual(
      expect.objectContaining({ apiKey: key.apiKey, label: 'catalogue sync', superadmin: false, grants: { product: ['VIEW'], tax: ['VIEW', 'CREATE'] } }),
    );

    expect(apiKeyTool('revoke', key.apiKey).status).toBe(0);
    expect((await call('GET', '/api/products', { as: key })).status).toBe(401);
    expect(JSON.parse(apiKeyTool('list').stdout)).toContainEqual(expect.objectContaining({ apiKey: key.apiKey, revokedAt: expect.any(String) }));
  }, 180_000);

  it('gives the keys it creates the default quota, or the one asked for, and sets or lifts it later', async () => {
    const byDefault = JSON.parse(apiKeyTool('create', '--label', 'storefront', '--grant', 'tax:VIEW').stdout) as { apiKey: string; secureKey: string };
    expect((await call('GET', '/api/tax-rules/1', { as: byDefault })).headers['ratelimit-policy']).toBe('"default";q=1200;w=60');

    const created = apiKeyTool('create', '--label', 'batch', '--grant', 'tax:VIEW', '--quota', '2/3600');
    expect(created.status, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout) as { apiKey: string; secureKey: string };
    expect(JSON.parse(apiKeyTool('list').stdout)).toContainEqual(expect.objectContaining({ apiKey: key.apiKey, quota: { requests: 2, seconds: 3600 } }));
    expect((await call('GET', '/api/tax-rules/1', { as: key })).status).toBe(200);
    expect((await call('GET', '/api/tax-rules/1', { as: key })).status).toBe(200);
    expect((await call('GET', '/api/tax-rules/1', { as: key })).status).toBe(429);

    const lifted = apiKeyTool('quota', key.apiKey, 'none');
    expect(lifted.status, lifted.stderr).toBe(0);
    const unlimited = await call('GET', '/api/tax-rules/1', { as: key });
    expect(unlimited.status).toBe(200);
    expect(unlimited.headers.ratelimit).toBeUndefined();

    expect(apiKeyTool('quota', key.apiKey, '6000/60').status).toBe(0);
    expect((await call('GET', '/api/tax-rules/1', { as: key })).headers['ratelimit-policy']).toBe('"default";q=6000;w=60');

    const noQuota = JSON.parse(apiKeyTool('create', '--label', 'trusted job', '--superadmin', '--quota', 'none').stdout) as { apiKey: string; secureKey: string };
    expect((await call('GET', '/api/tax-rules/1', { as: noQuota })).headers['ratelimit-policy']).toBeUndefined();
  }, 180_000);

  it('refuses a quota that is not N/SECONDS or none, and an unknown key', () => {
    for (const quota of ['0/60', '10/0', '10', 'ten/60', '10/60/2']) {
      const refused = apiKeyTool('create', '--label', 'x', '--superadmin', '--quota', quota);
      expect(refused.status, quota).toBe(2);
      expect(refused.stderr).toContain('a quota is N/SECONDS');
    }
    expect(apiKeyTool('quota', 'ABCDEF0123456789ABCDEF012', '10/60').status).toBe(1);
  }, 180_000);

  it('refuses unknown resources and accesses, a missing profile, and an unknown key to revoke', () => {
    expect(apiKeyTool('create', '--label', 'x', '--grant', 'orders:VIEW').status).toBe(2);
    expect(apiKeyTool('create', '--label', 'x', '--grant', 'tax:READ').status).toBe(2);
    const unsaid = apiKeyTool('create', '--label', 'x');
    expect(unsaid.stderr).toContain('--superadmin or at least one --grant');
    // A call at fault shows how to call it.
    expect(unsaid.stderr).toContain('usage:');
    expect(apiKeyTool('revoke', 'ABCDEF0123456789ABCDEF012').status).toBe(1);
  }, 180_000);
});
