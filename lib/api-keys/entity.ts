/** How API keys live in the table, declared once: by key, and listed by creation time. */
import * as v from 'valibot';
import { defineEntity } from '../db/entity.js';
import { bit } from '../row.js';
import { ACCESSES, GRANTS } from '../routes.js';

const ApiKeyItem = v.object({
  apiKey: v.string(),
  secureKey: v.string(),
  label: v.string(),
  superadmin: v.boolean(),
  grants: v.record(v.picklist(GRANTS), v.array(v.picklist(ACCESSES))),
  createdAt: v.string(),
  revokedAt: v.optional(v.string()),
  /** Requests per window (docs/api-keys.md); none: not limited. */
  quota: v.optional(v.object({ requests: v.number(), seconds: v.number() })),
});

export type ApiKeyItem = v.InferOutput<typeof ApiKeyItem>;

export const apiKeys = defineEntity({
  name: 'API key',
  schema: ApiKeyItem,
  id: (k) => k.apiKey,
  key: (apiKey: string) => ({ pk: `APIKEY#${apiKey}`, sk: 'APIKEY' }),
  lists: { all: { partition: () => 'APIKEYS', orders: { created: { index: 'GSI1', sortKey: (k) => `${k.createdAt}#${k.apiKey}` } } } },
  // Never the secure key. A key has two versions: created, then revoked.
  audit: {
    resource: 'api-key',
    version: (k) => (k.revokedAt ? 2 : 1),
    fields: (k) => [
      { field: 'LABEL', locale: null, value: k.label },
      { field: 'SUPERADMIN', locale: null, value: bit(k.superadmin) },
      { field: 'GRANTS', locale: null, value: k.grants },
      { field: 'REVOKED_AT', locale: null, value: k.revokedAt },
    ],
  },
});
