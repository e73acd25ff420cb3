/**
 * API keys (CONTRACT §3): 25 uppercase hex characters, each with a 48-hex-character secure key that
 * signs request bodies, a label and a profile: superadmin, or grants of accesses per resource.
 *
 * The secure key is stored as is: verifying an HMAC needs the key itself (as in Thelia). It is
 * shown once, by `create`, and never listed or logged.
 */
import { randomBytes } from 'node:crypto';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { readItem } from '../db/items.js';
import { db, tableName } from '../db/client.js';
import { keys } from '../db/keys.js';
import { queryAll } from '../db/paging.js';
import type { Access, Resource } from '../routes.js';

export const RESOURCES: readonly Resource[] = ['customer', 'product', 'tax'];
export const ACCESSES: readonly Access[] = ['VIEW', 'CREATE', 'UPDATE', 'DELETE'];

export type Grants = Partial<Record<Resource, Access[]>>;

export interface ApiKeyRecord {
  apiKey: string;
  label: string;
  superadmin: boolean;
  grants: Grants;
  createdAt: string;
  revokedAt?: string;
}

interface ApiKeyItem extends ApiKeyRecord {
  secureKey: string;
}

export const API_KEY_PATTERN = /^[0-9A-F]{25}$/;
export const SECURE_KEY_PATTERN = /^[0-9A-Fa-f]{48}$/;

const LIST_PARTITION = 'APIKEYS';

const publicRecord = ({ apiKey, label, superadmin, grants, createdAt, revokedAt }: ApiKeyItem): ApiKeyRecord => ({
  apiKey,
  label,
  superadmin,
  grants,
  createdAt,
  ...(revokedAt ? { revokedAt } : {}),
});

export function allows(record: ApiKeyRecord, resource: Resource, access: Access): boolean {
  return record.superadmin || (record.grants[resource] ?? []).includes(access);
}

async function putKey(item: ApiKeyItem, onlyIfNew: boolean): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.apiKey(item.apiKey), gsi1pk: LIST_PARTITION, gsi1sk: `${item.createdAt}#${item.apiKey}`, ...item },
      ...(onlyIfNew ? { ConditionExpression: 'attribute_not_exists(pk)' } : {}),
    }),
  );
}

export async function createApiKey(options: { label: string; superadmin?: boolean; grants?: Grants }): Promise<{ apiKey: string; secureKey: string }> {
  const apiKey = randomBytes(13).toString('hex').slice(0, 25).toUpperCase();
  const secureKey = randomBytes(24).toString('hex').toUpperCase();
  await putKey(
    { apiKey, secureKey, label: options.label, superadmin: options.superadmin ?? false, grants: options.grants ?? {}, createdAt: new Date().toISOString() },
    true,
  );
  return { apiKey, secureKey };
}

/** Makes sure a superadmin key with exactly these values exists and is active (STORE_BOOTSTRAP_API_KEY). */
export async function ensureApiKey(apiKey: string, secureKey: string, label = 'bootstrap'): Promise<void> {
  if (!API_KEY_PATTERN.test(apiKey) || !SECURE_KEY_PATTERN.test(secureKey)) {
    throw new Error('an API key is 25 uppercase hex characters and its secure key 48 hex characters');
  }
  const existing = await readKey(apiKey);
  if (existing && !existing.revokedAt && existing.superadmin && existing.secureKey === secureKey) return;
  await putKey({ apiKey, secureKey, label, superadmin: true, grants: {}, createdAt: existing?.createdAt ?? new Date().toISOString() }, false);
}

async function readKey(apiKey: string): Promise<ApiKeyItem | undefined> {
  return (await readItem(keys.apiKey(apiKey))) as ApiKeyItem | undefined;
}

/** The active key with its secure key, for request authentication; undefined when unknown or revoked. */
export async function findActiveKey(apiKey: string): Promise<{ record: ApiKeyRecord; secureKey: string } | undefined> {
  if (!API_KEY_PATTERN.test(apiKey)) return undefined;
  const item = await readKey(apiKey);
  if (!item || item.revokedAt) return undefined;
  return { record: publicRecord(item), secureKey: item.secureKey };
}

const keysQuery = { TableName: '', IndexName: 'GSI1', KeyConditionExpression: 'gsi1pk = :p', ExpressionAttributeValues: { ':p': LIST_PARTITION } };

export async function listApiKeys(): Promise<ApiKeyRecord[]> {
  const items = await queryAll({ ...keysQuery, TableName: tableName() });
  return items.map((item) => publicRecord(item as unknown as ApiKeyItem));
}

export async function hasAnyApiKey(): Promise<boolean> {
  const page = await db().send(new QueryCommand({ ...keysQuery, TableName: tableName(), Limit: 1 }));
  return (page.Items ?? []).length > 0;
}

/** Revokes a key; returns false when there is no such key. */
export async function revokeApiKey(apiKey: string): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.apiKey(apiKey),
        UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':now': new Date().toISOString() },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
