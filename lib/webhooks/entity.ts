/**
 * How webhook subscriptions live in the table, declared once, and the jobs that deliver changes to
 * them. The secret is kept as API keys' secure keys are, sealed (lib/sealed-secrets.ts: signing
 * needs it), and shown only once, in the create's answer. `start` is the change feed's position when the subscription was made, and
 * `startAt` the time: it gets the changes placed after the one and dated after the other.
 */
import * as v from 'valibot';
import type { Change } from '../db/changes.js';
import { defineAttemptLog } from '../db/attempt-log.js';
import { defineDueQueue } from '../db/due-queue.js';
import { defineEntity } from '../db/entity.js';
import { defineStored, StoredKey } from '../db/stored.js';
import { padId } from '../db/keys.js';
import type { WriteStep } from '../db/transactions.js';

export const WebhookRecord = v.object({
  id: v.number(),
  url: v.string(),
  events: v.array(v.string()),
  description: v.string(),
  enabled: v.boolean(),
  /** '' while enabled; `gone` after a 410; `failing` after three days of failures. */
  disabledReason: v.string(),
  /** Sealed, for the subscription's item (`sealedSecretOf`). */
  secret: v.string(),
  start: v.tuple([v.number(), v.number()]),
  /** When its create began (epoch ms): it takes only changes dated after (none before its answer). Absent on older subscriptions. */
  startAt: v.optional(v.number()),
  version: v.number(),
  createdAt: v.string(),
  updatedAt: v.string(),
});

export type WebhookSubscription = v.InferOutput<typeof WebhookRecord>;

/** A store has at most this many subscriptions: each change is matched against all of them. */
export const MAX_WEBHOOKS = 50;

export const webhooks = defineEntity({
  name: 'webhook',
  schema: WebhookRecord,
  id: (w) => w.id,
  key: (id: number) => ({ pk: `WEBHOOK#${id}`, sk: 'WEBHOOK' }),
  lists: { all: { partition: () => 'WEBHOOKS', counted: true, orders: { id: { index: 'GSI1', sortKey: (w) => padId(w.id) } } } },
  counter: { name: 'WEBHOOK', max: MAX_WEBHOOKS },
});

/** What a subscription's sealed secret is bound to: its own item. */
export const sealedSecretOf = (id: number): string => webhooks.key(id).pk;

/**
 * A delivery to make again: `WEBHOOK#<id> / JOB#<change id>`, due at its next attempt, in its
 * subscription's own lane: `<id>#retry` for a change that failed as it came, `<id>#replay` for a
 * replay's (lane.ts). A change's first attempt needs no job: the lane follows the feed.
 */
export const deliveryJobs = defineDueQueue({ name: 'WEBHOOK_DUE', index: 'GSI3' });
export const jobKey = (webhookId: number, changeId: string) => ({ pk: webhooks.key(webhookId).pk, sk: `JOB#${changeId}` });
export const retryLane = (webhookId: number): string => `${webhookId}#retry`;
export const replayLane = (webhookId: number): string => `${webhookId}#replay`;
/** The step that queues a delivery of a change to a subscription, due at `dueAt`. */
export const deliveryJob = (webhookId: number, change: Pick<Change, 'id' | 'key'>, dueAt: number, job: { replay?: boolean; attempt?: number; firstAttemptAt?: number } = {}): WriteStep =>
  deliveryJobs.enqueue(jobKey(webhookId, change.id), job.replay ? replayLane(webhookId) : retryLane(webhookId), dueAt, {
    webhookId,
    changeId: change.id,
    changeKey: change.key,
    attempt: job.attempt ?? 1,
    ...(job.firstAttemptAt === undefined ? {} : { firstAttemptAt: job.firstAttemptAt }),
  });
/** A queued delivery, as its job item holds it (the due-queue's own attributes ride along). */
export const StoredJob = defineStored('delivery job', {
  webhookId: v.number(),
  changeId: v.string(),
  changeKey: StoredKey,
  attempt: v.number(),
  /** When the change's first attempt was made (epoch ms): its retries are scheduled from it. */
  firstAttemptAt: v.optional(v.number()),
});
export type DeliveryJob = ReturnType<typeof StoredJob.parse>;

/** Where a subscription's lane is in the change feed: the position after the last change it took. */
export const laneCursorKey = (webhookId: number) => ({ pk: webhooks.key(webhookId).pk, sk: 'CURSOR' });
/** A lane's cursor: feed item `n`, entry `i`. */
export const StoredLaneCursor = defineStored('lane cursor', { position: v.tuple([v.number(), v.number()]) });
/** An attempt of the delivery log, as listed. */
export const StoredAttempt = defineStored('delivery attempt', {
  changeId: v.string(),
  attempt: v.number(),
  date: v.string(),
  status: v.number(),
  error: v.string(),
  /** When it is tried again; null when it is not (delivered, or its subscription disabled). */
  nextAttempt: v.nullable(v.string()),
});
/** Every attempt, in its subscription's partition, kept 30 days. */
export const deliveryLog = defineAttemptLog({ prefix: 'DELIVERY#', keepDays: 30 });
/** Where the one dispatcher of an earlier version was in the change feed (lib/migrations/steps.ts starts lanes there). */
export const DISPATCH_CURSOR = { pk: 'WEBHOOK_DISPATCH', sk: 'CURSOR' };
