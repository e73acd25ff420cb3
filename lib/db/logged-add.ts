/**
 * A number changed by one UpdateItem that no concurrent writer can lose: `ADD` to it and to the
 * record's version, on condition that it stays at or above a floor, appending who changed it, when
 * and by how much to a log on the item (the versions of the log's entries are the item's last ones,
 * in order). Writers of one item never cancel one another, as writers of one item in transactions do
 * (DynamoDB serializes single-item writes); the log is what lets each change be recorded afterwards
 * under its version, and trimmed once it is (`recordLog`). A write of the item's other fields must
 * find the log empty (entity-declaration.ts, `pendingLog`).
 *
 * Recording (`recordLog`): the writer records, in one transaction of changes and their markers only
 * (the steps its caller builds for each entry, the change put on condition that it is absent), every
 * entry of the log as it finds it, once its own entry is first, then removes them from the log on
 * condition that it still starts where it read it. A writer behind another waits for it (the first
 * records the log as it finds it, so that one transaction records the entries of many writers and
 * none cancels another's) and records itself when the first entry has not moved for STALLED_MS (its
 * writer stopped or stalls). A change another writer recorded first fails its condition: it is left
 * out and the rest sent again; one another writer is recording cancels the transaction (on
 * DynamoDB): the writer waits and reads the log again. So an entry's change is committed only with
 * or after every earlier one's, and the feed places one record's changes in version order.
 *
 * An UpdateItem that adds is not idempotent: it is sent once (by a client of one attempt), and sent
 * again after a refusal that wrote nothing (throttling, or a transaction writing the item). When its
 * answer is lost (a time-out, a cut connection), the add is fenced first (its id put in a map on the
 * item, with the time, which its condition requires it absent from), so that a late copy of it can no
 * longer apply; then it was applied if it is in the log or recorded, and else is sent again as a new
 * entry. A fence is needed only while a copy of its request could still arrive: DynamoDB refuses a
 * request signed 15 minutes before (SigV4), so each fence drops those older than FENCE_KEPT_MS, and
 * the map holds no more than the answers lost in that long.
 */
import { setTimeout as pause } from 'node:timers/promises';
import { NumberValue, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { createDynamoDbClient, documentClientOf, exactNumber, request, tableName } from './client.js';
import { Contended, OutOfTime, Unavailable, WriteConflict, isThrottled } from './errors.js';
import { readItem, type Item } from './items.js';
import type { Key } from './keys.js';
import { fullJitter, retrying } from './retry.js';
import { raced, StepFailed, update, writeSteps, type UpdateSpec, type WriteStep } from './transactions.js';

/** One change in an item's log. */
export interface LogEntry {
  /** Unique: the change's id once recorded. */
  id: string;
  [field: string]: unknown;
}

export interface LoggedAdd {
  /** The number attribute added to, and the amount (a decimal text, signed). */
  attribute: string;
  amount: string;
  /** The least the number may be left at (a decimal text). */
  floor: string;
  /** The list attribute the change is appended to, and the most entries it may hold. */
  log: string;
  /** The entry to append: asked again, with a new id, for an attempt after one whose answer was lost. */
  entry: () => LogEntry;
  maxEntries: number;
  /** A map of the ids of adds whose answer was lost to when they were fenced: an add whose id it holds no longer applies. */
  fence: string;
  /** Whether the entry of this id was recorded already (and trimmed from the log): where changes are is the caller's to know. */
  recorded: (id: string) => Promise<boolean>;
  /** The version the writer expects the item at, when it expects one. */
  expectedVersion?: number | undefined;
}

/**
 * What an add came to: the item as it left it; or, refused, the item as it was (undefined: none),
 * and whether its number was stored as text (which an add cannot add to).
 */
export type LoggedAddOutcome = { added: true; item: Item; entry: LogEntry } | { added: false; found: Item | undefined; numberAsText: boolean };

let onceClient: DynamoDBDocumentClient | undefined;
/** The client of the adds: one attempt a call, since the SDK would send an add again after a time-out it may have outlived. */
const sendingOnce = (): DynamoDBDocumentClient => (onceClient ??= documentClientOf(createDynamoDbClient(undefined, undefined, 1)));

/** An item as DynamoDB sends it (a refusal's `Item`) read as the document client reads one: numbers exact. */
const unmarshallExact = (item: Parameters<typeof unmarshall>[0]): Item => unmarshall(item, { wrapNumbers: exactNumber });

/**
 * Attempts refused without writing (throttled, or the item in a transaction: a recording that trims
 * the log holds it a few milliseconds) before the add gives up, each after a wait drawn from a window
 * that doubles (as retryOnConflict's): a request's budget bounds them first.
 */
const REFUSED_ATTEMPTS = 40;

export async function addLogged(key: Key, add: LoggedAdd): Promise<LoggedAddOutcome> {
  let entry = add.entry();
  return retrying(
    async () => {
      try {
        const { Attributes } = await request((db, options) => db.send(addCommand(key, add, entry), options), sendingOnce);
        return { added: true, item: Attributes ?? {}, entry };
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return { added: false, found: error.Item && unmarshallExact(error.Item), numberAsText: error.Item?.[add.attribute]?.S !== undefined };
        if (!answerLost(error)) throw error;
        // Applied or not, it can apply no more once fenced: found in the log or recorded, it was; else
        // it was not, and is sent again as a new entry.
        const found = await fenced(key, add, entry.id);
        if (found === undefined) return { added: false, found: undefined, numberAsText: false };
        if (((found[add.log] as LogEntry[] | undefined) ?? []).some((logged) => logged.id === entry.id) || (await add.recorded(entry.id))) return { added: true, item: found, entry };
        entry = add.entry();
        throw new AnswerLost();
      }
    },
    { attempts: REFUSED_ATTEMPTS, retryable: (error) => error instanceof AnswerLost || wroteNothing(error), waitMs: fullJitter(10, 320) },
  );
}

/** The UpdateItem of an add of `entry`. */
function addCommand(key: Key, add: LoggedAdd, entry: LogEntry): UpdateCommand {
  const conditions = [
    'attribute_exists(pk)',
    'attribute_type(#number, :numberType)',
    '#number >= :floor',
    '(attribute_not_exists(#log) OR size(#log) < :maxEntries)',
    'attribute_not_exists(#fence.#id)',
    ...(add.expectedVersion === undefined ? [] : ['version = :expectedVersion']),
  ];
  return new UpdateCommand({
    TableName: tableName(),
    Key: key,
    UpdateExpression: 'SET #log = list_append(if_not_exists(#log, :none), :entry) ADD #number :amount, version :one',
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: { '#number': add.attribute, '#log': add.log, '#fence': add.fence, '#id': entry.id },
    ExpressionAttributeValues: {
      ':numberType': 'N',
      ':floor': NumberValue.from(add.floor),
      ':maxEntries': add.maxEntries,
      ':none': [],
      ':entry': [entry],
      ':amount': NumberValue.from(add.amount),
      ':one': 1,
      ...(add.expectedVersion === undefined ? {} : { ':expectedVersion': add.expectedVersion }),
    },
    ReturnValues: 'ALL_NEW',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
}

/** An add whose answer was lost and that was found not applied: sent again, as a new entry. */
class AnswerLost extends Error {}

/**
 * A refusal that certainly wrote nothing: throttling, or a transaction writing the item then
 * (TransactionConflictException). A time-out or a fault on DynamoDB's side may have written.
 */
const wroteNothing = (error: unknown): boolean => error instanceof WriteConflict || (error instanceof Unavailable && isThrottled((error.cause as Error | undefined)?.name));

/** An answer lost (a time-out, a connection cut, a fault on DynamoDB's side): the add may have been applied. */
const answerLost = (error: unknown): boolean => error instanceof Unavailable && !(error instanceof OutOfTime) && !wroteNothing(error);

/**
 * How long a fence is kept: past 15 minutes DynamoDB refuses a copy of the request it fences (its
 * signature's time), and a few minutes more cover the clocks' difference.
 */
export const FENCE_KEPT_MS = 20 * 60_000;
/** Stale fences one fence drops at most (an update expression is bounded): the rest go with the next. */
const STALE_DROPPED = 50;

/**
 * Fences the add `id` (puts it in the fence, with the time: sent again, that is the same), so that
 * it can no longer apply, and drops the fences past FENCE_KEPT_MS; answers the item as the fence
 * left it (undefined: gone).
 */
async function fenced(key: Key, add: LoggedAdd, id: string): Promise<Item | undefined> {
  const item = await fence(key, add, id, Date.now());
  const stale = Object.entries((item?.[add.fence] as Record<string, number | string> | undefined) ?? {})
    .filter(([, at]) => Number(at) < Date.now() - FENCE_KEPT_MS)
    .slice(0, STALE_DROPPED);
  if (item && stale.length) {
    const names = Object.fromEntries(stale.map(([staleId], k) => [`#s${k}`, staleId]));
    await updateOnCondition(key, {
      update: `REMOVE ${Object.keys(names)
        .map((name) => `#fence.${name}`)
        .join(', ')}`,
      condition: 'attribute_exists(pk)',
      names: { '#fence': add.fence, ...names },
    });
  }
  return item;
}

/** Puts `id` in the item's fence, made with it when the item has none: the item as that left it (undefined: gone). */
async function fence(key: Key, add: LoggedAdd, id: string, at: number): Promise<Item | undefined> {
  const into = await updateOnCondition(
    key,
    { update: 'SET #fence.#id = :at', condition: 'attribute_type(#fence, :map)', names: { '#fence': add.fence, '#id': id }, values: { ':at': at, ':map': 'M' } },
    'ALL_NEW',
  );
  if (into.updated) return into.item;
  if (!into.found) return undefined;
  if (into.found[add.fence] !== undefined) throw new Error(`${add.fence} is not a map of fences`);
  const made = await updateOnCondition(
    key,
    { update: 'SET #fence = :fence', condition: 'attribute_exists(pk) AND attribute_not_exists(#fence)', names: { '#fence': add.fence }, values: { ':fence': { [id]: at } } },
    'ALL_NEW',
  );
  if (made.updated) return made.item;
  // Another fence made it meanwhile: put this one in it.
  return made.found && fence(key, add, id, at);
}

/**
 * One UpdateItem on its own, on condition: updated (with the item as it left it, when `returned` is
 * ALL_NEW), or not, with the item as it was (undefined: none).
 */
async function updateOnCondition(key: Key, spec: UpdateSpec, returned: 'NONE' | 'ALL_NEW' = 'NONE'): Promise<{ updated: true; item: Item | undefined } | { updated: false; found: Item | undefined }> {
  try {
    const { Attributes } = await request((db, options) =>
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: spec.update,
          ConditionExpression: spec.condition,
          ExpressionAttributeNames: spec.names,
          ExpressionAttributeValues: spec.values,
          ReturnValues: returned,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
        options,
      ),
    );
    return { updated: true, item: Attributes };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return { updated: false, found: error.Item && unmarshallExact(error.Item) };
    throw error;
  }
}

/** The update that removes a log's first `count` entries and sets `set`, on condition that the log still starts with entry `firstId`. */
function trimming(log: string, count: number, firstId: string, set: Item): UpdateSpec {
  const setting = Object.entries(set).map(([field, value], k) => ({ clause: `#s${k} = :s${k}`, name: [`#s${k}`, field], value: [`:s${k}`, value] }));
  const removed = Array.from({ length: count }, (_, k) => `#log[${k}]`);
  return {
    update: `REMOVE ${removed.join(', ')}${setting.length ? ` SET ${setting.map((s) => s.clause).join(', ')}` : ''}`,
    condition: '#log[0].#id = :first',
    names: { '#log': log, '#id': 'id', ...Object.fromEntries(setting.map((s) => s.name)) },
    values: { ':first': firstId, ...Object.fromEntries(setting.map((s) => s.value)) },
  };
}

/**
 * The step of a transaction that trims the log as `recordAndTrim` does alone: for a transaction that records the
 * log's only entry, so that recording and trimming are one request. Its item is then in a
 * transaction, which a concurrent add waits out (it is refused, and sent again).
 */
const trimStep = (key: Key, log: string, count: number, firstId: string, set: Item): WriteStep => update(key, trimming(log, count, firstId, set), raced);

/** A log entry as its caller records it: its id, the steps that record its change (the change put on condition that it is absent, and no other condition), and what the item is set to once it is trimmed (its date). */
export interface LoggedChange {
  id: string;
  steps: readonly WriteStep[];
  trimmedWith: Item;
}

/** How long the entry first in a log may stay there before a writer behind it records it. */
const STALLED_MS = 250;
/** Reads of the log a writer makes while it waits for the entries before its own to be recorded (about 4 s). */
const WAITING_READS = 384;

/**
 * Records the entries of the item `read` (`changesOf` makes each one's steps from the item as
 * found) and trims them from its `log`: without `mine` (a write settling the log) at once; with it
 * (the writer of that entry) once its entry is first, or has waited STALLED_MS behind a first that
 * does not move. Done when `mine` (else every entry read) is gone from the log.
 */
export async function recordLog(key: Key, read: Item, log: { name: string; mine?: string | undefined; changesOf: (item: Item) => LoggedChange[] }): Promise<void> {
  /** Entries found recorded by another writer (their change was there). */
  const recorded = new Set<string>();
  let item = read;
  let first = { id: '', since: Date.now() };
  for (let reads = 0; reads < WAITING_READS; ) {
    const changes = log.changesOf(item);
    const position = log.mine === undefined ? 0 : changes.findIndex((change) => change.id === log.mine);
    const [head] = changes;
    // Gone from the log: recorded and trimmed, by this writer or another.
    if (position < 0 || !head) return;
    if (head.id !== first.id) first = { id: head.id, since: Date.now() };
    if (position === 0 || Date.now() - first.since > STALLED_MS) {
      const outcome = await recordAndTrim(key, log.name, changes, recorded);
      if (outcome === 'trimmed' || outcome === undefined) return;
      if (outcome !== 'in-flight') {
        item = outcome;
        continue;
      }
    }
    // Another writer is recording the entries before this one: wait for its transaction, then read what it left.
    await pause(10 + Math.random() * 15);
    reads++;
    const now = await readItem(key);
    if (!now) return;
    item = now;
  }
  throw new Contended();
}

/**
 * Records `changes` (but those found `recorded`) in one transaction and trims them from the log:
 * `trimmed`; `in-flight` when another writer's transaction holds their changes; else the item to go
 * on from (a change found there already, or a trim another writer made first), or undefined when
 * the item is gone. A log of one entry is recorded and trimmed in one transaction.
 */
async function recordAndTrim(key: Key, log: string, changes: readonly LoggedChange[], recorded: Set<string>): Promise<'trimmed' | 'in-flight' | Item | undefined> {
  const unrecorded = changes.filter((change) => !recorded.has(change.id));
  const [first, last] = [changes[0] as LoggedChange, changes.at(-1) as LoggedChange];
  const trimmedWith = changes.length === 1 && unrecorded.length === 1;
  const steps = unrecorded.flatMap((change) => change.steps);
  const owners = unrecorded.flatMap((change) => change.steps.map(() => change.id));
  try {
    await writeSteps([...steps, ...(trimmedWith ? [trimStep(key, log, 1, first.id, last.trimmedWith)] : [])]);
  } catch (error) {
    if (error instanceof WriteConflict) return 'in-flight';
    if (!(error instanceof StepFailed)) throw error;
    // Only a change put has a condition of its own: there already, it was recorded by another writer.
    for (const step of error.failing) {
      const owner = owners[step];
      if (owner !== undefined) recorded.add(owner);
    }
    return readItem(key);
  }
  if (trimmedWith) return 'trimmed';
  // On condition that the log still starts where it was read: another writer's trim may have come first.
  const trim = await updateOnCondition(key, trimming(log, changes.length, first.id, last.trimmedWith));
  return trim.updated ? 'trimmed' : trim.found;
}
