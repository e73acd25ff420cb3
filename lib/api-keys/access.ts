/** What a key may do (docs/api-keys.md), from its profile alone: no table, so that the pre-traffic hook bundles it too. */
import type { ApiKeyItem } from './entity.js';
import type { Access, ProtectedBy } from '../routes.js';

/**
 * Whether a key has an access to a resource; for `change`, VIEW of at least one resource (it sees
 * those resources' changes); for `webhook`, only a superadmin; for `reference`, any key.
 */
export function allows(record: Pick<ApiKeyItem, 'superadmin' | 'grants'>, resource: ProtectedBy, access: Access): boolean {
  if (resource === 'reference') return true;
  if (resource === 'webhook') return record.superadmin;
  if (resource === 'change') return record.superadmin || Object.values(record.grants).some((accesses) => accesses.includes(access));
  return record.superadmin || (record.grants[resource] ?? []).includes(access);
}
