/**
 * Server-side keys, derived per purpose from the server secret: the list cursors' signatures, the
 * idempotency fingerprints, off AWS the key that wraps sealed secrets' data keys (sealed-secrets.ts),
 * and the table's record of which secret sealed it (lib/local/table-secret.ts). The secret is read
 * when first needed and kept for the container's life:
 *   STORE_SECRET       the secret itself (`npm start` and the tools take their data dir's; tests; sam local);
 *   STORE_SECRET_ARN   else, the Secrets Manager secret the stack generated (only the functions
 *                      that sign cursors or fingerprint requests have it, and may only read it).
 * With neither, nothing is signed, fingerprinted or sealed (docs/api-keys.md: secrets fail closed): a
 * default would be a secret anyone who reads this file knows.
 */
import { createHmac } from 'node:crypto';
import { DependencyUnavailable, SecretMissing } from './errors.js';

let fetched: Promise<string> | undefined;

/**
 * A Secrets Manager secret's value, read with the Secrets Manager client loaded on first need (on
 * Lambda a file of its own beside the function's bundle, `BUNDLE.lazyClients`: no cold start parses it). The server secret's reader, and the stage keys' (lib/deploy/stage-keys.ts).
 */
export async function readSecretString(secretId: string, clientConfig: Record<string, unknown> = {}): Promise<string> {
  const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const client = new SecretsManagerClient(clientConfig);
  try {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
    if (!SecretString) throw new Error(`the secret ${secretId} is empty`);
    return SecretString;
  } finally {
    client.destroy();
  }
}

/** The server secret, within a request's time: two tries, each bounded. */
async function fetchSecret(arn: string): Promise<string> {
  try {
    return await readSecretString(arn, { maxAttempts: 2, requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000, throwOnRequestTimeout: true } });
  } catch (error) {
    throw new DependencyUnavailable('the server secret could not be read', error);
  }
}

function rootSecret(): Promise<string> | string {
  if (process.env.STORE_SECRET) return process.env.STORE_SECRET;
  const arn = process.env.STORE_SECRET_ARN;
  if (!arn) throw new SecretMissing();
  fetched ??= fetchSecret(arn).catch((error: unknown) => {
    fetched = undefined; // the next request tries again
    throw error;
  });
  return fetched;
}

export type KeyPurpose = 'cursor' | 'idempotency' | 'secrets-at-rest' | 'table-fingerprint';

export async function serverKey(purpose: KeyPurpose): Promise<Buffer> {
  return createHmac('sha256', await rootSecret())
    .update(purpose)
    .digest();
}
