/**
 * The change feed and the records' histories (docs/changes-events-webhooks.md), read for a caller: it sees the changes
 * of the resources its key may VIEW (API keys' changes: superadmin only).
 */
import { allows } from '../api-keys/access.js';
import type { ApiKeyRecord } from '../api-keys/index.js';
import { feedEnd, follow, historyEnd, readHistory } from '../db/feed.js';
import { positionOf, type Page, type PageRequest } from '../db/page.js';
import { Forbidden, invalidField } from '../errors.js';
import { changeGrant } from '../resources.js';
import type { Row } from '../row.js';
import { changeRow } from './row.js';
import { CHANGE_RESOURCES, type ChangeListInput, type ChangeResource } from './schema.js';

/** A resource's changes show to the keys that may VIEW it (API keys': superadmins, as webhooks). */
const mayView = (key: ApiKeyRecord, resource: ChangeResource): boolean => allows(key, changeGrant(resource), 'VIEW');

export async function listChanges(query: ChangeListInput, page: PageRequest, caller: ApiKeyRecord): Promise<Page<Row>> {
  if (query.resource && !mayView(caller, query.resource)) throw new Forbidden(`this API key may not VIEW ${query.resource} changes`);
  if (query.entity_id !== undefined) {
    if (!query.resource) throw invalidField('entity_id', 'needs resource: a record is named by both');
    const isKey = query.resource === 'api-key';
    if (isKey !== /^[0-9A-F]{25}$/.test(query.entity_id)) throw invalidField('entity_id', isKey ? 'must be an API key' : 'must be an integer id');
    return history(query.resource, isKey ? query.entity_id : Number(query.entity_id), page);
  }
  const wanted = new Set(query.resource ? [query.resource] : CHANGE_RESOURCES.filter((resource) => mayView(caller, resource)));
  if (page.fromNow) {
    const end = await feedEnd();
    return { items: [], next: [end.n, end.i], positions: [] };
  }
  const after = page.after === undefined ? undefined : positionOf(page.after, 2);
  const { changes, next, positions } = await follow({
    from: after && { n: Number(after[0]), i: Number(after[1]) },
    wanted: (resource) => wanted.has(resource as ChangeResource),
    limit: page.limit,
  });
  return { items: changes.map(changeRow), next: [next.n, next.i], positions: positions.map((p) => [p.n, p.i]) };
}

/** One record's changes in version order: its history, as recorded with each write. */
async function history(resource: ChangeResource, entityId: string | number, page: PageRequest): Promise<Page<Row>> {
  if (page.fromNow) return { items: [], next: [await historyEnd(resource, entityId)], positions: [] };
  const after = page.after === undefined ? undefined : String(positionOf(page.after, 1)[0]);
  const { changes, positions } = await readHistory(resource, entityId, after || undefined, page.limit);
  return { items: changes.map(changeRow), next: [positions.at(-1) ?? after ?? ''], positions: positions.map((p) => [p]) };
}
