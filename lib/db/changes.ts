/**
 * Changes recorded with the writes that make them (docs/changes-events-webhooks.md). An entity that declares an
 * `audit` (its resource name and the fields its rows show) gets, in every create, replace and remove
 * transaction, two more items per record:
 *
 *   CHANGE#<resource>#<id> / V#<version>#<0|1>    the change itself: who, when, field by field
 *                                                 (the record's history, read by version)
 *   CHANGES#PENDING#<0-7> / <when>#<resource>#<id>#V#<version>#<0|1>
 *                                                 a marker that the feed (feed.ts) has not placed it
 *                                                 yet, keyed by the change's time (epoch ms, made
 *                                                 monotonic per record) so that the feed takes the
 *                                                 oldest first
 *
 * Both are written only if the transaction commits, so a change exists if and only if its write did.
 * Neither is shared with another record's write: the change lives in the record's own partition, the
 * marker is an item of its own in one of eight partitions picked by the record (so one record's
 * markers sort by version, and no partition takes more than an eighth of the store's writes). The
 * changes one transaction records in one partition share one marker, keyed as the oldest of them
 * (`others` names the rest): a batch of 32 rows writes at most 8 markers, not 32.
 */
import type { WriteStamp } from './stamp.js';
import * as v from 'valibot';
import { gunzipSync, gzipSync } from 'node:zlib';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { LIMITS } from '../limits.js';
import { queryPage, type Item } from './items.js';
import { shardOf, type Key } from './keys.js';
import { defineStored, StoredKey } from './stored.js';
import { table } from './table.js';
import { Conflict } from './errors.js';
import { ABSENT, put, type WriteStep } from './transactions.js';
import { joinable } from './joined-steps.js';
import { isDeepStrictEqual } from 'node:util';

/** A field of a record as its loop row shows it; `secret` ones are compared, never shown (a password). */
export interface ChangeField {
  field: string;
  locale: string | null;
  value: unknown;
  secret?: boolean;
}

/** How an entity's records are recorded: the resource's name in changes, and the fields they hold. */
export interface AuditDeclaration<R> {
  resource: string;
  fields: (record: R) => ChangeField[];
}

export type ChangeType = 'created' | 'updated' | 'deleted';

/**
 * A record's localized texts as change fields: each locale (in order), each text field the locale
 * holds, named as the row names it (`title` → `TITLE`).
 */
export function localizedFields(i18n: Record<string, Record<string, string | undefined>>, fields: readonly string[]): ChangeField[] {
  return Object.entries(i18n)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .flatMap(([locale, texts]) => fields.filter((field) => texts[field] !== undefined).map((field) => ({ field: field.toUpperCase(), locale, value: texts[field] })));
}

/** One field's change: `before` and `after` as the row shows them, null where the record had none. */
export interface FieldChange {
  field: string;
  locale: string | null;
  before: unknown;
  after: unknown;
}

/** Who made a change: the API key and the request (the request log's id), or a tool. */
export interface Change {
  /** Where the change item is: what a job that delivers it later reads it by. */
  key: Key;
  id: string;
  resource: string;
  entityId: string | number;
  type: ChangeType;
  version: number;
  changes: FieldChange[];
  apiKey: string;
  requestId: string;
  date: string;
}

/**
 * How long changes are kept: STORE_CHANGE_RETENTION_DAYS (365 by default; a fraction of a day for
 * tests). On AWS every function has it from the stack (`-c changeRetentionDays`); the feed's placer
 * notes it in the table, where the tools take it from (`useStoreRetention` in feed.ts).
 */
export function retentionSeconds(): number {
  const days = Number(process.env.STORE_CHANGE_RETENTION_DAYS ?? 365);
  return Math.max(1, Math.round((Number.isFinite(days) && days > 0 ? days : 365) * 86_400));
}
/** The TTL of a change written at `now` (epoch ms), in epoch seconds. */
const expiryOfNewChange = (now: number): number => Math.floor(now / 1000) + retentionSeconds();

export const PENDING_PARTITIONS = 8;
const fieldKey = (field: Pick<ChangeField, 'field' | 'locale'>) => `${field.field}\u0000${field.locale ?? ''}`;

/**
 * The fields that differ between two states of a record (none for a create's `before`, a delete's
 * `after`): a create lists every field with `before` null, a delete every field with `after` null,
 * an update exactly the fields whose value changed. Secret fields are listed, with null values.
 */
export function diffFields(before: ChangeField[] | undefined, after: ChangeField[] | undefined): FieldChange[] {
  // A field without a value is one the record does not hold.
  const held = (fields: ChangeField[] | undefined) => new Map((fields ?? []).filter((field) => field.value !== undefined).map((field) => [fieldKey(field), field]));
  const [old, now] = [held(before), held(after)];
  const changes: FieldChange[] = [];
  const shown = (field: ChangeField | undefined) => (field === undefined || field.secret ? null : field.value);
  // In the order of the record's fields after the change (then those it no longer holds).
  for (const key of new Set([...now.keys(), ...old.keys()])) {
    const [a, b] = [old.get(key), now.get(key)];
    const named = b ?? a;
    if (named === undefined || (a !== undefined && b !== undefined && isDeepStrictEqual(a.value, b.value))) continue;
    changes.push({ field: named.field, locale: named.locale, before: shown(a), after: shown(b) });
  }
  return changes;
}

const padVersion = (version: number) => String(version).padStart(10, '0');
/** A deletion carries the record's last version: it sorts after the change that made that version. */
const typeRank = (type: ChangeType) => (type === 'deleted' ? 1 : 0);

/** The key prefix of change items: what the table's stream carries to the push of changes. */
export const CHANGE_KEY_PREFIX = 'CHANGE#';

/** Where a record's changes live: its history, read in version order. */
export const historyPartition = (resource: string, entityId: string | number): string => `${CHANGE_KEY_PREFIX}${resource}#${entityId}`;
/** The id of the record whose history `partition` (historyPartition's) is. */
export const entityOfHistory = (partition: string, resource: string): string => partition.slice(historyPartition(resource, '').length);
export const changeKey = (resource: string, entityId: string | number, version: number, type: ChangeType): Key => ({
  pk: historyPartition(resource, entityId),
  sk: `V#${padVersion(version)}#${typeRank(type)}`,
});

/**
 * Whether one of a record's last changes (up to `within`) has the id `changeId`: what a writer whose
 * answer was lost asks of a change recorded after its write (logged-add.ts).
 */
export async function recentlyRecorded(resource: string, entityId: string | number, changeId: string, within = 512): Promise<boolean> {
  const { items } = await queryPage({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': historyPartition(resource, entityId) },
    ProjectionExpression: 'changeId',
    ConsistentRead: true,
    ScanIndexForward: false,
    Limit: within,
  });
  return items.some((item) => item.changeId === changeId);
}

/** Where the markers of pending changes are: their partitions' common prefix. */
export const PENDING_PREFIX = 'CHANGES#PENDING#';
/** The marker partitions, by number; a record's markers are all in one, picked by the record. */
export const pendingPartitionKey = (shard: number): string => `${PENDING_PREFIX}${shard}`;
export const pendingPartition = (resource: string, entityId: string | number): string => pendingPartitionKey(shardOf(`${resource}#${entityId}`, PENDING_PARTITIONS));
/** Whether a transaction's steps record a change (they leave a marker for the placer). */
export const recordsAChange = (steps: readonly WriteStep[]): boolean => steps.some((step) => String(step.item.Put?.Item?.pk ?? '').startsWith(PENDING_PREFIX));

/** Field changes past this many bytes of JSON are stored compressed (texts compress well). */
const COMPRESS_FROM = 8 * 1024;

/** The change's field list as stored: JSON text, gzipped when large. */
function storedChanges(changes: FieldChange[]): Item {
  const json = JSON.stringify(changes);
  if (Buffer.byteLength(json) < COMPRESS_FROM) return { changes: json };
  const packed = gzipSync(json);
  if (packed.length > LIMITS.dynamodb.itemBytes - 4 * 1024) {
    // Only a record near the item size changing all its text at once gets here; it keeps who and when.
    return { changes: JSON.stringify(changes.map(({ field, locale }) => ({ field, locale, before: null, after: null }))), truncated: true };
  }
  return { changesGzip: packed };
}

/** A recorded change, as its item holds it (its field list as JSON text, gzipped when large). */
export const StoredChange = defineStored('change', {
  pk: v.string(),
  sk: v.string(),
  changeId: v.string(),
  resource: v.string(),
  entityId: v.union([v.string(), v.number()]),
  type: v.picklist(['created', 'updated', 'deleted']),
  version: v.number(),
  changes: v.optional(v.string()),
  changesGzip: v.optional(v.instance(Uint8Array)),
  apiKey: v.string(),
  requestId: v.string(),
  date: v.string(),
});

/** A change a marker names: its resource, its item's key, and its expiry. */
const PendingChange = v.object({ resource: v.string(), change: StoredKey, changeExpiresAt: v.optional(v.number()) });
export type PendingChange = v.InferOutput<typeof PendingChange>;

/**
 * Changes not in the feed yet: the first's time and record in its sort key, its change's key and
 * expiry, and the other changes its transaction recorded in the same partition (`others`, oldest
 * first), which one marker names together.
 */
export const StoredMarker = defineStored('pending marker', {
  pk: v.string(),
  sk: v.string(),
  resource: v.string(),
  change: StoredKey,
  changeExpiresAt: v.optional(v.number()),
  others: v.optional(v.array(PendingChange), []),
});
export type Marker = ReturnType<typeof StoredMarker.parse>;

/** Every change a marker names, its own first. */
export const changesOf = (marker: Marker): PendingChange[] => [{ resource: marker.resource, change: marker.change, changeExpiresAt: marker.changeExpiresAt }, ...marker.others];

/**
 * The most changes one marker names: what the placer puts in one feed item (feed.ts), so that any
 * marker can be placed in one round.
 */
export const CHANGES_A_MARKER = 98;

/** The marker of one change, as `changeSteps` makes it. */
type OneMarker = Key & PendingChange;

/**
 * The markers of one transaction in one partition (each of one change, as `changeSteps` made them)
 * as the fewest items: each names up to CHANGES_A_MARKER changes, under the key of its oldest. A
 * transaction that records many changes (a batch's packed rows, an import's records) writes one
 * marker per partition, and the placer deletes one item for them, instead of one each.
 */
function joinMarkers(steps: readonly WriteStep[]): WriteStep[] {
  const markers = steps.map((step) => step.item.Put?.Item as OneMarker).sort((a, b) => (a.sk < b.sk ? -1 : a.sk > b.sk ? 1 : 0));
  const joined: WriteStep[] = [];
  for (let start = 0; start < markers.length; start += CHANGES_A_MARKER) {
    const [oldest, ...others] = markers.slice(start, start + CHANGES_A_MARKER);
    if (oldest) joined.push(put({ ...oldest, ...(others.length ? { others: others.map(({ resource, change, changeExpiresAt }) => ({ resource, change, changeExpiresAt })) } : {}) }));
  }
  return joined;
}

/** The width of a marker's time (epoch milliseconds): every marker sorts by it first. */
const TIME_DIGITS = 15;

/**
 * When a change happens: now, or just after the record's previous change (`previousAt`, its last
 * `updatedAt`) if this container's clock is behind the one that wrote it, so that a record's changes
 * are never dated, nor sorted in the feed, before one another.
 */
export const changeTime = (previousAt: string | undefined, now: number): number => {
  const previous = previousAt === undefined ? NaN : Date.parse(previousAt);
  return Number.isFinite(previous) ? Math.max(now, previous + 1) : now;
};

/** The steps that record one change of a record, for the transaction that makes it, by the write `stamp` stamps. */
export function changeSteps(stamp: WriteStamp, resource: string, entityId: string | number, type: ChangeType, version: number, changes: FieldChange[], previousAt?: string): WriteStep[] {
  const { actor } = stamp;
  const key = changeKey(resource, entityId, version, type);
  const now = changeTime(previousAt, stamp.at);
  const item: Item = {
    ...key,
    changeId: stamp.newId(),
    resource,
    entityId,
    type,
    version,
    ...storedChanges(changes),
    apiKey: actor.apiKey,
    requestId: actor.requestId,
    date: new Date(now).toISOString(),
    [table.ttlAttribute]: expiryOfNewChange(now),
  };
  // The marker carries its change's expiry: the feed item that will name it lives as long as its changes.
  const marker: OneMarker = {
    pk: pendingPartition(resource, entityId),
    sk: `${String(now).padStart(TIME_DIGITS, '0')}#${resource}#${entityId}#${key.sk}`,
    resource,
    change: key,
    changeExpiresAt: item[table.ttlAttribute] as number,
  };
  // A record's version is recorded once, never overwritten. Only a record made again under the id of
  // one that was deleted meets its own history (the import, whose ids are the source's): it is refused.
  const recorded = () => new Conflict(`${resource} ${entityId} was deleted since it was made, and its history is kept: it is not made again under its id`);
  return [put(item, ABSENT, recorded), joinable(put(marker), `marker\u0000${marker.pk}`, joinMarkers)];
}

/**
 * A change from the stream's image of its item, as a Lambda event carries it (binary values in
 * base64; the SDK's unmarshalling takes bytes).
 */
export function changeOfStreamImage(image: Record<string, { B?: string } & Record<string, unknown>>): Change {
  const bytes = Object.fromEntries(Object.entries(image).map(([name, value]) => [name, typeof value.B === 'string' ? { B: Buffer.from(value.B, 'base64') } : value]));
  return changeOf(unmarshall(bytes as Parameters<typeof unmarshall>[0]));
}

/** A stored change item as a change. */
export function changeOf(item: Item): Change {
  const stored = StoredChange.parse(item);
  return {
    key: { pk: stored.pk, sk: stored.sk },
    id: stored.changeId,
    resource: stored.resource,
    entityId: stored.entityId,
    type: stored.type,
    version: stored.version,
    changes: JSON.parse(stored.changesGzip ? gunzipSync(stored.changesGzip).toString() : (stored.changes ?? '[]')) as FieldChange[],
    apiKey: stored.apiKey,
    requestId: stored.requestId,
    date: stored.date,
  };
}
