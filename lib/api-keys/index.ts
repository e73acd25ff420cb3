/**
 * API keys (CONTRACT §3): 25 uppercase hex characters, each with a 48-hex-character secure key that
 * signs request bodies, a label and a profile: superadmin, or grants of accesses per resource.
 *
 * Verifying an HMAC needs the secure key itself (as in Thelia): it is stored sealed
 * (lib/sealed-secrets.ts), opened only to verify a request, shown once, by `create`, and never
 * listed or logged.
 */
import { randomBytes } from 'node:crypto';
import { NotFound } from '../db/errors.js';
import { update, writeAtomically } from '../db/transactions.js';
import { ACCESSES, GRANTS, type Access, type ProtectedBy } from '../routes.js';
import { apiKeys, type ApiKeyItem } from './entity.js';
import type { Quota } from './quota.js';
import { isSealed, seal, unseal } from '../sealed-secrets.js';

export { ACCESSES, GRANTS };
export type Grants = ApiKeyItem['grants'];
/** A key as it may be shown: everything but the secure key. */
export type ApiKeyRecord = Omit<ApiKeyItem, 'secureKey'>;

export const API_KEY_PATTERN = /^[0-9A-F]{25}$/;
export const SECURE_KEY_PATTERN = /^[0-9A-Fa-f]{48}$/;

/** What a key's sealed secure key is bound to: its own item. */
export const sealedFor = (apiKey: string): string => apiKeys.key(apiKey).pk;

const publicRecord = ({ secureKey: _, ...record }: ApiKeyItem): ApiKeyRecord => record;

/**
 * Whether a key has an access to a resource; for `change`, VIEW of at least one resource (it sees
 * those resources' changes); for `webhook`, only a superadmin; for `reference`, any key.
 */
export function allows(record: ApiKeyRecord, resource: ProtectedBy, access: Access): boolean {
  if (resource === 'reference') return true;
  if (resource === 'webhook') return record.superadmin;
  if (resource === 'change') return record.superadmin || Object.values(record.grants).some((accesses) => accesses.includes(access));
  return record.superadmin || (record.grants[resource] ?? []).includes(access);
}

/** Makes a key; with no `quota`, it is not limited (the tool gives its keys DEFAULT_QUOTA). */
export async function createApiKey(options: { label: string; superadmin?: boolean; grants?: Grants; quota?: Quota }): Promise<{ apiKey: string; secureKey: string }> {
  const apiKey = randomBytes(13).toString('hex').slice(0, 25).toUpperCase();
  const secureKey = randomBytes(24).toString('hex').toUpperCase();
  const item = {
    apiKey,
    secureKey: await seal(secureKey, sealedFor(apiKey)),
    label: options.label,
    superadmin: options.superadmin ?? false,
    grants: options.grants ?? {},
    createdAt: new Date().toISOString(),
    ...(options.quota ? { quota: options.quota } : {}),
  };
  await writeAtomically(apiKeys.create(item));
  return { apiKey, secureKey };
}

/**
 * Makes sure a superadmin key with exactly these values exists and is active (STORE_BOOTSTRAP_API_KEY).
 * A key revoked since stays revoked: someone revoked it on purpose, and a start must not undo that
 * unseen. The start fails, saying so.
 */
export async function ensureApiKey(apiKey: string, secureKey: string, label = 'bootstrap'): Promise<void> {
  if (!API_KEY_PATTERN.test(apiKey) || !SECURE_KEY_PATTERN.test(secureKey)) {
    throw new Error('an API key is 25 uppercase hex characters and its secure key 48 hex characters');
  }
  const existing = await apiKeys.read(apiKey);
  if (existing?.revokedAt) {
    throw new Error(`the key ${apiKey} (STORE_BOOTSTRAP_API_KEY) was revoked on ${existing.revokedAt} and stays revoked: remove the variable, or name another key`);
  }
  // As it should be, and sealed (one stored in clear before is put back sealed).
  const unchanged = existing?.superadmin && isSealed(existing.secureKey) && (await unseal(existing.secureKey, sealedFor(apiKey))) === secureKey;
  if (unchanged) return;
  // A quota set on it since stays.
  const key = {
    apiKey,
    secureKey: await seal(secureKey, sealedFor(apiKey)),
    label,
    superadmin: true,
    grants: {},
    createdAt: existing?.createdAt ?? new Date().toISOString(),
    ...(existing?.quota ? { quota: existing.quota } : {}),
  };
  // A key made anew is a created key; one put back as it should be is tooling repairing it, not a change.
  await writeAtomically([apiKeys.overwrite(key), ...(existing ? [] : apiKeys.recordChange(undefined, key))]);
}

/** The active key with its secure key, for request authentication; undefined when unknown or revoked. */
export async function findActiveKey(apiKey: string): Promise<{ record: ApiKeyRecord; secureKey: string } | undefined> {
  if (!API_KEY_PATTERN.test(apiKey)) return undefined;
  const item = await apiKeys.read(apiKey);
  if (!item || item.revokedAt) return undefined;
  return { record: publicRecord(item), secureKey: await unseal(item.secureKey, sealedFor(apiKey)) };
}

export async function listApiKeys(): Promise<ApiKeyRecord[]> {
  return (await apiKeys.readAll()).map(publicRecord);
}

export async function hasAnyApiKey(): Promise<boolean> {
  const page = await apiKeys.list('all', { order: 'created', reverse: false }, { limit: 1, offset: 0 });
  return page.items.length > 0;
}

/**
 * Sets a key's quota, or takes it off (null); false when there is no such key. Running containers
 * apply it when their cached copy of the key expires (lib/http/auth.ts).
 */
export async function setApiKeyQuota(apiKey: string, quota: Quota | null): Promise<boolean> {
  const spec = quota
    ? { update: 'SET #quota = :quota', condition: 'attribute_exists(pk)', names: { '#quota': 'quota' }, values: { ':quota': quota } }
    : { update: 'REMOVE #quota', condition: 'attribute_exists(pk)', names: { '#quota': 'quota' } };
  try {
    await writeAtomically([update(apiKeys.key(apiKey), spec, () => new NotFound('API key'))]);
    return true;
  } catch (error) {
    if (error instanceof NotFound) return false;
    throw error;
  }
}

/** Revokes a key (the first revocation's time is kept); returns false when there is no such key. */
export async function revokeApiKey(apiKey: string): Promise<boolean> {
  const current = await apiKeys.read(apiKey);
  if (!current) return false;
  if (current.revokedAt) return true;
  const revoked = { ...current, revokedAt: new Date().toISOString() };
  try {
    // Only while no one else revoked it: then there is one revocation, and one change.
    const revoke = update(
      apiKeys.key(apiKey),
      { update: 'SET revokedAt = :at', condition: 'attribute_exists(pk) AND attribute_not_exists(revokedAt)', values: { ':at': revoked.revokedAt } },
      () => new NotFound('API key'),
    );
    await writeAtomically([revoke, ...apiKeys.recordChange(current, revoked)]);
    return true;
  } catch (error) {
    // Gone since, or revoked by someone else first (whose change it is).
    if (error instanceof NotFound) return (await apiKeys.read(apiKey)) !== undefined;
    throw error;
  }
}
