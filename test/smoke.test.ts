/**
 * `npm run smoke`, as a pipeline's post-deploy step runs it: against `npm start` with a key made
 * for it by the tool (exit 0, each check said), against a server that fails (exit 1, the failing
 * checks named), and without its key (exit 2, the usage).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../lib/local/dynamodb-local.js';
import { start, usersShell } from './support/npm-start.js';

/** Runs a command as a user's shell would, with only what is given of this test process's table, endpoint and secret. */
function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { env: usersShell(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let dataDir = '';
afterAll(() => dataDir && rm(dataDir, { recursive: true, force: true }));

describe('npm run smoke', () => {
  it('passes every check against npm start, on a key the tool made for it, given as STORE_SMOKE_KEY or read from a secret as a stage keeps its own', async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'store-api-smoke-'));
    const port = await freePort();
    const server = start({ DATA_DIR: dataDir, PORT: String(port), STORE_SECRET: '', DYNAMODB_ENDPOINT: '', STORE_TABLE_NAME: 'store' });
    await server.ready;
    const made = await run(['lib/cli/api-key.ts', 'create', '--label', 'smoke', '--grant', 'tax:VIEW,CREATE,DELETE'], { DATA_DIR: dataDir });
    expect(made.code, made.stderr).toBe(0);
    const { apiKey, secureKey } = JSON.parse(made.stdout) as { apiKey: string; secureKey: string };
    const smoke = await run(['lib/cli/smoke.ts', '--url', `http://127.0.0.1:${port}`], { STORE_SMOKE_KEY: `${apiKey}:${secureKey}` });
    expect(smoke.code, smoke.stdout + smoke.stderr).toBe(0);
    expect(smoke.stdout.split('\n').filter((line) => line.startsWith('ok'))).toHaveLength(5);
    expect(smoke.stdout).toContain(`smoke: every check held on http://127.0.0.1:${port}`);

    // The same key as a stage keeps its own (73 hex characters), read from its secret as a pipeline's step does,
    // from a stand-in of Secrets Manager on 127.0.0.1 that speaks its protocol.
    const asked: string[] = [];
    const secretsManager = createServer((request, response) => {
      let raw = '';
      request.on('data', (chunk) => (raw += chunk));
      request.on('end', () => {
        const { SecretId } = JSON.parse(raw) as { SecretId: string };
        asked.push(`${request.headers['x-amz-target']} ${SecretId}`);
        response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify({ ARN: SecretId, Name: 'SmokeKey', SecretString: `${apiKey}${secureKey}` }));
      });
    });
    await new Promise<void>((resolve) => secretsManager.listen(0, '127.0.0.1', resolve));
    try {
      const secret = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:SmokeKey1A2B3C4D-AbCdEf';
      const fromSecret = await run(['lib/cli/smoke.ts', '--url', `http://127.0.0.1:${port}`, '--key-secret', secret], {
        AWS_ENDPOINT_URL_SECRETS_MANAGER: `http://127.0.0.1:${(secretsManager.address() as { port: number }).port}`,
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
      });
      expect(fromSecret.code, fromSecret.stdout + fromSecret.stderr).toBe(0);
      expect(asked).toEqual([`secretsmanager.GetSecretValue ${secret}`]);
    } finally {
      secretsManager.close();
    }
    server.child.kill('SIGTERM');
  }, 180_000);

  it('exits 1 against a server that fails, naming each failed check, and 2 without its key', async () => {
    // Healthy to look at, but every signed request is a 503.
    const failing = createServer((request, response) => {
      if (request.url === '/api') return response.writeHead(200, { 'content-type': 'text/plain' }).end('OK');
      response.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '1' }).end('{"status":503,"title":"Service Unavailable"}');
    });
    await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(failing.address() as { port: number }).port}`;
    try {
      const smoke = await run(['lib/cli/smoke.ts', '--url', url], { STORE_SMOKE_KEY: `${'A'.repeat(25)}:${'0'.repeat(48)}` });
      expect(smoke.code).toBe(1);
      expect(smoke.stdout).toContain('ok    health');
      expect(smoke.stdout).toContain('FAIL  signed read: GET /api/tax-rules?limit=1 answers 200 with loop rows: answered 503, not 200');
      expect(smoke.stdout).toContain('FAIL  create');
      // A create answered 503 may have been applied: the rule is looked for, and, the rules not listed, named.
      expect(smoke.stdout).toContain('left behind: perhaps a tax rule titled "store-api smoke ');
      expect(smoke.stdout).toContain("its create's outcome is unknown, and the rules could not be listed to find it");
      const unkeyed = await run(['lib/cli/smoke.ts', '--url', url], {});
      expect(unkeyed.code).toBe(2);
      expect(unkeyed.stderr).toContain('STORE_SMOKE_KEY=<apiKey>:<secureKey> npm run smoke -- --url');
    } finally {
      failing.close();
    }
  }, 180_000);

  it('deletes its rule whatever failed: a delete answered 503 is tried again, and one that never succeeds names the rule left behind', async () => {
    // A store that makes the rule, reads it, and answers its delete 503 `failures` times.
    const store = (failures: number) => {
      let title = '';
      let deletes = 0;
      const server = createServer((request, response) => {
        let body = '';
        request.on('data', (chunk) => (body += chunk));
        request.on('end', () => {
          const json = (status: number, value: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
          const path = (request.url ?? '').split('?')[0];
          if (path === '/api') return response.writeHead(200).end('OK');
          if (request.method === 'POST') {
            title = (JSON.parse(body) as { i18n: Array<{ title: string }> }).i18n[0]!.title;
            return json(201, [{ ID: 7, TITLE: title }]);
          }
          if (request.method === 'DELETE') return ++deletes <= failures ? json(503, { status: 503 }) : response.writeHead(204).end();
          if (path === '/api/tax-rules/7') return deletes > failures ? json(404, { status: 404 }) : json(200, [{ ID: 7, TITLE: title }]);
          return json(200, []);
        });
      });
      return { server, deletes: () => deletes };
    };
    const smokeAgainst = async (failures: number) => {
      const { server, deletes } = store(failures);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const smoke = await run(['lib/cli/smoke.ts', '--url', `http://127.0.0.1:${(server.address() as { port: number }).port}`], { STORE_SMOKE_KEY: `${'A'.repeat(25)}:${'0'.repeat(48)}` });
        return { ...smoke, deletes: deletes() };
      } finally {
        server.close();
      }
    };
    const once = await smokeAgainst(1);
    expect(once.code, once.stdout).toBe(0);
    expect(once.deletes).toBe(2);
    const never = await smokeAgainst(100);
    expect(never.code).toBe(1);
    expect(never.deletes).toBe(4);
    expect(never.stdout).toContain('FAIL  delete: DELETE /api/tax-rules/7');
    expect(never.stdout).toMatch(/left behind: tax rule 7 "store-api smoke [^"]+": its delete answered 503: .* \(4 attempts\); delete it with DELETE \/api\/tax-rules\/7/);
  }, 180_000);
});
