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
  }, 30_000);

  it('refuses unknown resources and accesses, a missing profile, and an unknown key to revoke', () => {
    expect(apiKeyTool('create', '--label', 'x', '--grant', 'orders:VIEW').status).toBe(2);
    expect(apiKeyTool('create', '--label', 'x', '--grant', 'tax:READ').status).toBe(2);
    expect(apiKeyTool('create', '--label', 'x').stderr).toContain('--superadmin or at least one --grant');
    expect(apiKeyTool('revoke', 'ABCDEF0123456789ABCDEF012').status).toBe(1);
  }, 30_000);
});
