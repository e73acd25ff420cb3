/**
 * Secrets at rest (docs/changes-events-webhooks.md): API keys' secure keys and webhook secrets are sealed in the table
 * (lib/sealed-secrets.ts), every item of which is scanned for them; they still verify and sign.
 * Under KMS (a stand-in that speaks its protocol), a container asks for one data key to seal with,
 * opens each data key once, and a warm request asks KMS nothing.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiKeys } from '../lib/api-keys/entity.js';
import { createApiKey } from '../lib/api-keys/index.js';
import { db, tableName } from '../lib/db/client.js';
import { runMigrations } from '../lib/migrations/run.js';

/** `npm run migrate -- --all`: every step, again. */
const migrate = () => runMigrations({ all: true });
import { webhooks } from '../lib/webhooks/entity.js';
import { get, post, tableSnapshot } from './support/api.js';
import { startKmsStandIn, type KmsStandIn } from './support/kms-stand-in.js';

process.env.STORE_API_KEY_CACHE_SECONDS = '0';
process.env.STORE_WEBHOOKS_ALLOW_LOOPBACK = '1';

/** The ways a secret could sit in an item: as made, in either case of hex, or the base64 inside `whsec_`. */
const spellings = (secret: string): string[] => [secret, secret.toLowerCase(), secret.toUpperCase(), ...(secret.startsWith('whsec_') ? [secret.slice(6)] : [])];

async function itemsHolding(secrets: string[]): Promise<unknown[]> {
  const wanted = secrets.flatMap(spellings);
  return (await tableSnapshot()).filter((item) => wanted.some((secret) => JSON.stringify(item).includes(secret)));
}

describe('secrets in the table', () => {
  it('are sealed: no item holds a secure key or a webhook secret, which still verify and sign', async () => {
    const key = await createApiKey({ label: 'sealed', superadmin: true });
    const subscribed = await post('/api/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['product.*'] }, { as: key });
    expect(subscribed.status).toBe(201);
    const secret = String(subscribed.body[0].SECRET);
    expect(secret).toMatch(/^whsec_/);

    expect(await itemsHolding([key.secureKey, secret])).toEqual([]);
    expect((await apiKeys.read(key.apiKey))!.secureKey).toMatch(/^sealed:1:local:/);
    expect((await webhooks.read(subscribed.body[0].ID))!.secret).toMatch(/^sealed:1:local:/);
    expect((await get('/api/tax-rules/1', { as: key })).status).toBe(200);
  });

  it('are sealed in place by the migration when an earlier version stored them in clear', async () => {
    const key = await createApiKey({ label: 'from before', superadmin: true });
    const clearKey = '00112233445566778899AABBCCDDEEFF0011223344556677';
    const item = await apiKeys.read(key.apiKey);
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...apiKeys.key(key.apiKey), ...item, secureKey: clearKey, gsi1pk: 'APIKEYS', gsi1sk: `${item!.createdAt}#${key.apiKey}` } }));
    const before = { apiKey: key.apiKey, secureKey: clearKey };
    // Read as it is until then.
    expect((await get('/api/tax-rules/1', { as: before })).status).toBe(200);
    expect(await itemsHolding([clearKey])).not.toEqual([]);

    const secretsSealed = (await migrate()).counts['secrets sealed'];
    expect(secretsSealed).toBeGreaterThanOrEqual(1);
    expect(await itemsHolding([clearKey])).toEqual([]);
    expect((await get('/api/tax-rules/1', { as: before })).status).toBe(200);
    expect((await migrate()).counts['secrets sealed']).toBeUndefined();
  });
});

describe('under KMS', () => {
  let kms: KmsStandIn;
  beforeAll(async () => {
    kms = await startKmsStandIn();
    process.env.KMS_ENDPOINT = kms.endpoint;
    process.env.STORE_SECRETS_KEY_ARN = kms.keyId;
  });
  afterAll(async () => {
    delete process.env.KMS_ENDPOINT;
    delete process.env.STORE_SECRETS_KEY_ARN;
    await kms.close();
  });

  /** The module as a fresh container loads it. */
  const freshContainer = async () => {
    vi.resetModules();
    return import('../lib/sealed-secrets.js');
  };

  it('seals with one data key per container, opens each once, and asks nothing on a warm request', async () => {
    const sealer = await freshContainer();
    const sealed = await Promise.all(['first', 'second', 'third'].map((text, i) => sealer.seal(text, `APIKEY#${i}`)));
    expect(kms.calls).toEqual({ GenerateDataKey: 1, Decrypt: 0 });
    for (const value of sealed) expect(value).toMatch(/^sealed:1:kms:/);

    const reader = await freshContainer();
    expect(await Promise.all(sealed.map((value, i) => reader.unseal(value, `APIKEY#${i}`)))).toEqual(['first', 'second', 'third']);
    expect(kms.calls.Decrypt).toBe(1);
    for (let i = 0; i < 10; i++) await reader.unseal(sealed[0]!, 'APIKEY#0');
    expect(kms.calls).toEqual({ GenerateDataKey: 1, Decrypt: 1 });
    expect(new Set(kms.contexts.map((context) => JSON.stringify(context)))).toEqual(new Set([JSON.stringify({ purpose: 'store-api sealed secrets' })]));
  });

  it('does not open a sealed value moved to another item', async () => {
    const container = await freshContainer();
    const sealed = await container.seal('a secure key', 'APIKEY#A');
    await expect(container.unseal(sealed, 'APIKEY#B')).rejects.toThrow();
  });

  it('verifies requests with a key sealed under KMS', async () => {
    // Made by a tool that seals under KMS; verified by the API's handlers, which open it with one Decrypt.
    vi.resetModules();
    const tool = await import('../lib/api-keys/index.js');
    const key = await tool.createApiKey({ label: 'kms', superadmin: true });
    expect((await apiKeys.read(key.apiKey))!.secureKey).toMatch(/^sealed:1:kms:/);
    expect((await get('/api/tax-rules/1', { as: key })).status).toBe(200);
    expect(await itemsHolding([key.secureKey])).toEqual([]);
  });
});
