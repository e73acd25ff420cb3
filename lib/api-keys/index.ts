/**
 * API keys (docs/api-keys.md): 25 uppercase hex characters, each with a 48-hex-character secure key that
 * signs request bodies, a label and a profile: superadmin, or grants of accesses per resource.
 *
 * Verifying an HMAC needs the secure key itself (as in Thelia): it is stored sealed
 * (lib/sealed-secrets.ts), opened only to verify a request, shown once, by `create`, and never
 * listed or logged.
 */
import { randomBytes } from 'node:crypto';
import { NotFound } from '../db/errors.js';
import { update } from '../db/transactions.js';
import { stepsWrite } from '../db/write-plan.js';
import { ACCESSES, GRANTS } from '../routes.js';
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
    ...(options.quota ? { quota: options.quota } : {}),
  };
  await stepsWrite((stamp) => apiKeys.create(stamp, { ...item, createdAt: stamp.now })).commit();
  return { apiKey, secureKey };
}

/** What a key may do, what it is called, and, for a key that is made sure of, who names it (said when it was revoked). */
export interface KeyProfile {
  label: string;
  superadmin: boolean;
  grants: Grants;
  namedBy?: { name: string; instead: string };
}

/** The bootstrap key's profile (STORE_BOOTSTRAP_API_KEY, the sample events' key). */
const BOOTSTRAP: KeyProfile = { label: 'bootstrap', superadmin: true, grants: {}, namedBy: { name: 'STORE_BOOTSTRAP_API_KEY', instead: 'remove the variable, or name another key' } };

/**
 * Makes sure a key with exactly these values and this profile exists and is active: the bootstrap
 * key of `npm start` (STORE_BOOTSTRAP_API_KEY), a stage's own keys (lib/deploy/stage-keys.ts).
 * A key revoked since stays revoked: someone revoked it on purpose, and a start or a deploy must not
 * undo that unseen. It fails, saying so.
 */
export async function ensureApiKey(apiKey: string, secureKey: string, profile: KeyProfile = BOOTSTRAP): Promise<void> {
  if (!API_KEY_PATTERN.test(apiKey) || !SECURE_KEY_PATTERN.test(secureKey)) {
    throw new Error('an API key is 25 uppercase hex characters and its secure key 48 hex characters');
  }
  const existing = await apiKeys.read(apiKey);
  if (existing?.revokedAt) {
    const { name, instead } = profile.namedBy ?? { name: profile.label, instead: 'name another key' };
    throw new Error(`the key ${apiKey} (${name}) was revoked on ${existing.revokedAt} and stays revoked: ${instead}`);
  }
  // As it should be, and sealed (one stored in clear before is put back sealed).
  // Grants compared by their entries in order: a map read back from DynamoDB keeps no order of its own.
  const grantsOf = (grants: Grants) => JSON.stringify(Object.entries(grants).sort(([a], [b]) => a.localeCompare(b)));
  const sameProfile = existing && existing.superadmin === profile.superadmin && grantsOf(existing.grants) === grantsOf(profile.grants);
  const unchanged = sameProfile && isSealed(existing.secureKey) && (await unseal(existing.secureKey, sealedFor(apiKey))) === secureKey;
  if (unchanged) return;
  // A quota set on it since stays.
  const key = {
    apiKey,
    secureKey: await seal(secureKey, sealedFor(apiKey)),
    label: profile.label,
    superadmin: profile.superadmin,
    grants: profile.grants,
    ...(existing?.quota ? { quota: existing.quota } : {}),
  };
  // A key made anew is a created key; one put back as it should be is tooling repairing it, not a change.
  await stepsWrite((stamp) => {
    const made = { ...key, createdAt: existing?.createdAt ?? stamp.now };
    return [apiKeys.overwrite(made), ...(existing ? [] : apiKeys.recordChange(stamp, undefined, made))];
  }).commit();
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
    await stepsWrite(() => [update(apiKeys.key(apiKey), spec, () => new NotFound('API key'))]).commit();
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
  try {
    // Only while no one else revoked it: then there is one revocation, and one change.
    await stepsWrite((stamp) => {
      const revoked = { ...current, revokedAt: stamp.now };
      const revoke = update(
        apiKeys.key(apiKey),
        { update: 'SET revokedAt = :at', condition: 'attribute_exists(pk) AND attribute_not_exists(revokedAt)', values: { ':at': revoked.revokedAt } },
        () => new NotFound('API key'),
      );
      return [revoke, ...apiKeys.recordChange(stamp, current, revoked)];
    }).commit();
    return true;
  } catch (error) {
    // Gone since, or revoked by someone else first (whose change it is).
    if (error instanceof NotFound) return (await apiKeys.read(apiKey)) !== undefined;
    throw error;
  }
}
