/**
 * Secrets fail closed, one per table (docs/api-keys.md): nothing is signed, fingerprinted or sealed
 * without a configured secret; the tools take the data dir's secret however they reach a local table
 * (DYNAMODB_ENDPOINT given, a running `npm start`, or neither), as the README documents them; a
 * process whose secret is not the table's refuses before it writes; a stored secret that does not
 * open is a server fault that says so.
 */
import { spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DynamoDBDocumentClient, GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../lib/api-keys/index.js';
import { apiKeys } from '../lib/api-keys/entity.js';
import { createDynamoDbClient, db, tableName } from '../lib/db/client.js';
import { signBody } from '../lib/api-keys/signature.js';
import { freePort } from '../lib/local/dynamodb-local.js';
import { serverKey } from '../lib/secrets.js';
import { call, logLines, superadminKey, tableSnapshot, type Credentials } from './support/api.js';
import { start, usersShell } from './support/npm-start.js';

const exited = (child: ChildProcessWithoutNullStreams) => new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code))));

/** A tool as a user's shell runs it: none of this test process's table, endpoint or secret, only what is given. */
function tool(script: string, args: string[], env: Record<string, string>) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { env: usersShell(env), encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const createKey = (env: Record<string, string>) => tool('lib/cli/api-key.ts', ['create', '--label', 'made by the tool', '--grant', 'tax:VIEW'], env);

/** Every item of a DynamoDB Local's `store` table, in key order, but the feed's (its markers and placements), which npm start's placer keeps moving. */
async function scanStore(endpoint: string): Promise<unknown[]> {
  const client = createDynamoDbClient(endpoint);
  try {
    const { Items = [] } = await DynamoDBDocumentClient.from(client).send(new ScanCommand({ TableName: 'store', ConsistentRead: true }));
    return Items.filter((item) => !String(item.pk).startsWith('CHANGES#')).sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`));
  } finally {
    client.destroy();
  }
}

describe('a process without a secret', () => {
  it('refuses to sign, fingerprint or seal, naming what to set, and a request that needs one is a 500 that says so', async () => {
    await superadminKey(); // made (and sealed) while the secret is there
    const own = process.env.STORE_SECRET;
    delete process.env.STORE_SECRET;
    try {
      await expect(serverKey('cursor')).rejects.toThrow(/STORE_SECRET.*DATA_DIR.*STORE_SECRET_ARN/);
      const before = await tableSnapshot();
      // An Idempotency-Key is fingerprinted under the server secret.
      const created = await call('POST', '/api/tax-rules', { body: { country: [64], tax: [1], i18n: [{ locale: 'en_US', title: 'no secret' }] }, headers: { 'Idempotency-Key': 'no-secret-1' } });
      expect(created.status).toBe(500);
      expect(created.body.detail).toContain('no secret configured');
      expect(await tableSnapshot()).toEqual(before);
    } finally {
      process.env.STORE_SECRET = own;
    }
  });
});

describe('a stored secret that does not open', () => {
  it('is answered as a server fault that says so, and logged with its cause', async () => {
    const key: Credentials = await createApiKey({ label: 'altered', superadmin: true });
    // One character of its sealed ciphertext altered, as a table restored under another secret would read.
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: apiKeys.key(key.apiKey) }));
    const sealed = String(Item!.secureKey);
    const altered = `${sealed.slice(0, -2)}${sealed.at(-2) === 'A' ? 'B' : 'A'}${sealed.at(-1)}`;
    await db().send(new UpdateCommand({ TableName: tableName(), Key: apiKeys.key(key.apiKey), UpdateExpression: 'SET secureKey = :s', ExpressionAttributeValues: { ':s': altered } }));
    const answer = await call('GET', '/api/tax-rules/1', { as: key });
    expect(answer.status).toBe(500);
    expect(answer.body.detail).toContain('could not be opened');
    expect(logLines.some((line) => line.includes('SealedSecretUnreadable') && line.includes('"cause"'))).toBe(true);
  });
});

describe('one secret per table', () => {
  let dataDir = '';
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'store-api-secret-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('npm start with another secret than its table refuses at once, saying which sealed it, and writes nothing', async () => {
    const before = await tableSnapshot();
    const { child, ready } = start({ PORT: String(await freePort()), DATA_DIR: dataDir, STORE_SECRET: 'not the secret of this table' });
    const failed = await ready.then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(await exited(child)).toBe(1);
    expect(failed).toMatch(/start failed: the table test-[\w-]+ is sealed under another server secret than this process's: it was sealed under a secret given as STORE_SECRET .* Nothing was written/s);
    expect(await tableSnapshot()).toEqual(before);
  }, 180_000);

  it("the tools take the data dir's secret however they reach its table, so that npm start serves every key they make; another secret is refused", async () => {
    const env = { DATA_DIR: dataDir, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
    // Neither npm start nor DYNAMODB_ENDPOINT: the tool starts DynamoDB Local on the data dir for itself.
    const alone = createKey(env);
    expect(alone.status, alone.stderr).toBe(0);
    // It says which store it works on: a store of another data dir is never taken for this one.
    expect(alone.stderr).toContain(`No npm start runs on ${path.resolve(dataDir)}: working on the store there`);

    const port = await freePort();
    const server = start({ ...env, PORT: String(port), STORE_SECRET: '', DYNAMODB_ENDPOINT: '', STORE_TABLE_NAME: 'store' });
    await server.ready;
    const endpoint = (await readFile(path.join(dataDir, 'dynamodb-endpoint'), 'utf8')).trim();
    // Beside the running npm start, found through its data dir, and given its endpoint as the README's option.
    const beside = createKey(env);
    expect(beside.status, beside.stderr).toBe(0);
    const withEndpoint = createKey({ ...env, DYNAMODB_ENDPOINT: endpoint });
    expect(withEndpoint.status, withEndpoint.stderr).toBe(0);
    // Run as npm start's own hint would be without its DATA_DIR: refused, naming the store npm start serves.
    const { DATA_DIR: _dataDir, ...withoutDataDir } = env;
    const elsewhere = createKey(withoutDataDir);
    expect(elsewhere.status).not.toBe(0);
    expect(elsewhere.stderr).toContain(`npm start serves `);
    expect(elsewhere.stderr).toContain(`DATA_DIR=${JSON.stringify(path.resolve(dataDir))} (pid `);
    expect(elsewhere.stderr).toContain('Nothing was done.');
    for (const made of [alone, beside, withEndpoint]) {
      const { apiKey, secureKey } = JSON.parse(made.stdout) as Credentials;
      const answer = await fetch(`http://127.0.0.1:${port}/api/tax-rules/1?sign=${signBody(secureKey, '')}`, { headers: { Authorization: `Token ${apiKey}` } });
      expect(answer.status).toBe(200);
    }

    const before = await scanStore(endpoint);
    const wrong = { ...env, DYNAMODB_ENDPOINT: endpoint, STORE_SECRET: 'another secret' };
    for (const refused of [createKey(wrong), tool('lib/cli/migrate.ts', [], wrong)]) {
      expect(refused.status).not.toBe(0);
      expect(refused.stderr).toContain(`sealed under the secret file of the data dir ${dataDir}`);
      expect(refused.stderr).toContain('DATA_DIR=');
      // A failure of the run says what failed, not how to call the tool.
      expect(refused.stderr).not.toContain('usage:');
    }
    expect(await scanStore(endpoint)).toEqual(before);
    server.child.kill('SIGTERM');
    expect(await exited(server.child)).toBe(0);
  }, 180_000);
});
