/**
 * Secrets at rest (docs/changes-events-webhooks.md): API keys' secure keys and webhook secrets are stored sealed, so
 * that the table, its backups, exports and stream never hold them in clear. Envelope encryption:
 * a secret is sealed with AES-256-GCM under a data key, bound to the item it belongs to (the
 * `context`, as additional data: a sealed value moved to another item does not open), and the data
 * key is stored beside it, wrapped by a key-encryption key:
 *   kms     on AWS (STORE_SECRETS_KEY_ARN): the stack's KMS key; data keys come from GenerateDataKey
 *           and open with Decrypt, which only the functions that verify or sign may call;
 *   local   elsewhere: a key derived from the server secret (lib/secrets.ts).
 * A container seals with one data key and keeps every data key it opened, so that a warm request
 * makes no KMS call; nothing here runs at init (KMS's client is loaded at its first need, from a
 * file of its own bundled beside the function's: `BUNDLE.lazyClients`). A value that is not sealed (a table from before, until
 * `npm run migrate` seals it) is taken as it is.
 *
 *   sealed:1:<keyring>:<wrapped data key>:<iv>:<ciphertext and tag>   (base64url fields)
 */
import { present } from './present.js';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { endpointConfig } from './aws-endpoint.js';
import { DependencyUnavailable, SealedSecretUnreadable, SecretMissing } from './errors.js';
import { serverKey } from './secrets.js';

type Keyring = 'kms' | 'local';

const PREFIX = 'sealed:1:';
/** Bound to every data key KMS makes or opens for us: a data key of another use of the key does not open here. */
export const KMS_CONTEXT = { purpose: 'store-api sealed secrets' } as const;

export const isSealed = (value: string): boolean => value.startsWith(PREFIX);

/** AES-256-GCM: the ciphertext, then its 16-byte tag. */
function gcm(key: Buffer, iv: Buffer, plaintext: Buffer, aad: string): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(aad));
  return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

function ungcm(key: Buffer, iv: Buffer, sealed: Buffer, aad: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(aad));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
}

let kmsClient: Promise<import('@aws-sdk/client-kms').KMSClient> | undefined;
const kms = () =>
  (kmsClient ??= import('@aws-sdk/client-kms').then(
    ({ KMSClient }) => new KMSClient({ maxAttempts: 2, requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000, throwOnRequestTimeout: true }, ...endpointConfig(process.env.KMS_ENDPOINT) }),
  ));

async function kmsCall<T>(what: string, call: (sdk: typeof import('@aws-sdk/client-kms'), client: import('@aws-sdk/client-kms').KMSClient) => Promise<T>): Promise<T> {
  try {
    return await call(await import('@aws-sdk/client-kms'), await kms());
  } catch (error) {
    throw new DependencyUnavailable(`KMS could not ${what}`, error);
  }
}

/** The local key-encryption key, wrapping data keys as KMS would. */
const localWrap = async (dataKey: Buffer): Promise<Buffer> => {
  const iv = randomBytes(12);
  return Buffer.concat([iv, gcm(await serverKey('secrets-at-rest'), iv, dataKey, 'data key')]);
};
const localUnwrap = async (wrapped: Buffer): Promise<Buffer> => ungcm(await serverKey('secrets-at-rest'), wrapped.subarray(0, 12), wrapped.subarray(12), 'data key');

interface DataKey {
  keyring: Keyring;
  key: Buffer;
  wrapped: Buffer;
}

async function newDataKey(): Promise<DataKey> {
  const keyId = process.env.STORE_SECRETS_KEY_ARN;
  if (keyId) {
    const { Plaintext, CiphertextBlob } = await kmsCall('make a data key', (sdk, client) =>
      client.send(new sdk.GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: KMS_CONTEXT })),
    );
    return { keyring: 'kms', key: Buffer.from(present(Plaintext, "the data key's plaintext")), wrapped: Buffer.from(present(CiphertextBlob, "the data key's wrapped form")) };
  }
  // On AWS without the key (a tool run with STORE_TABLE_NAME alone), no function could open what it sealed.
  if (!process.env.DYNAMODB_ENDPOINT) {
    throw new Error("sealing a secret on AWS needs STORE_SECRETS_KEY_ARN (the stack's SecretsKeyArn output)");
  }
  const key = randomBytes(32);
  return { keyring: 'local', key, wrapped: await localWrap(key) };
}

/** The data key this container seals with (one KMS call per container, not per secret). */
let sealingKey: Promise<DataKey> | undefined;
/** Data keys opened, by their wrapped form: a warm request opens none. */
const opened = new Map<string, Promise<Buffer>>();
const MAX_OPENED = 256;

function openDataKey(keyring: Keyring, wrapped: string): Promise<Buffer> {
  const known = opened.get(wrapped);
  if (known) return known;
  const blob = Buffer.from(wrapped, 'base64url');
  const key =
    keyring === 'kms'
      ? kmsCall('open a data key', (sdk, client) => client.send(new sdk.DecryptCommand({ CiphertextBlob: blob, EncryptionContext: KMS_CONTEXT }))).then(({ Plaintext }) =>
          Buffer.from(present(Plaintext, "the data key's plaintext")),
        )
      : localUnwrap(blob);
  const oldest = opened.keys().next();
  if (opened.size >= MAX_OPENED && !oldest.done) opened.delete(oldest.value);
  opened.set(wrapped, key);
  key.catch(() => opened.delete(wrapped)); // the next request tries again
  return key;
}

/** Seals a secret for the item `context` names (such as `APIKEY#<key>`). */
export async function seal(plaintext: string, context: string): Promise<string> {
  sealingKey ??= newDataKey().catch((error: unknown) => {
    sealingKey = undefined;
    throw error;
  });
  const { keyring, key, wrapped } = await sealingKey;
  const iv = randomBytes(12);
  const ciphertext = gcm(key, iv, Buffer.from(plaintext, 'utf8'), context);
  const wrappedText = wrapped.toString('base64url');
  // The sealer knows its own data key: it opens what it sealed without asking KMS.
  if (!opened.has(wrappedText)) opened.set(wrappedText, Promise.resolve(key));
  return `${PREFIX}${keyring}:${wrappedText}:${iv.toString('base64url')}:${ciphertext.toString('base64url')}`;
}

/** Opens a sealed secret of the item `context` names; a value not sealed is returned as it is. */
export async function unseal(value: string, context: string): Promise<string> {
  if (!isSealed(value)) return value;
  const [keyring, wrapped, iv, ciphertext] = value.slice(PREFIX.length).split(':');
  if ((keyring !== 'kms' && keyring !== 'local') || !wrapped || !iv || !ciphertext) throw new Error('a sealed secret is malformed');
  try {
    const key = await openDataKey(keyring, wrapped);
    return ungcm(key, Buffer.from(iv, 'base64url'), Buffer.from(ciphertext, 'base64url'), context).toString('utf8');
  } catch (error) {
    // KMS out of reach or no secret configured: said as such. Anything else: the value does not open here.
    if (error instanceof DependencyUnavailable || error instanceof SecretMissing) throw error;
    throw new SealedSecretUnreadable(context, error);
  }
}
