/**
 * Webhook subscriptions (docs/changes-events-webhooks.md): made, read, changed and removed by superadmins; their
 * delivery log; and replay from a position of the change feed.
 */
import { setTimeout as pause } from 'node:timers/promises';
import { NotFound } from '../db/errors.js';
import { feedEnd, follow } from '../db/feed.js';
import { mapPage, positionOf, type Page, type PageRequest } from '../db/page.js';
import { plan, stepsWrite, Write } from '../db/write-plan.js';
import { invalidField } from '../errors.js';
import type { Row } from '../row.js';
import { AddressRefused, checkWebhookUrl } from './address-policy.js';
import { deliveryJob, deliveryLog, sealedSecretOf, StoredAttempt, webhooks, type WebhookSubscription } from './entity.js';
import { deliveryRow, webhookRow, type DeliveryAttempt } from './row.js';
import { matches, type WebhookCreateInput, type WebhookUpdateInput } from './schema.js';
import { newWebhookSecret } from './secret.js';
import { seal } from '../sealed-secrets.js';

/** `http` and 127.0.0.1/::1 allowed: `npm start` and tests say so (STORE_WEBHOOKS_ALLOW_LOOPBACK=1); a deployment never does. */
export const deliveryOptions = () => ({ allowLoopback: process.env.STORE_WEBHOOKS_ALLOW_LOOPBACK === '1' });

const missing = () => new NotFound('webhook');

async function readWebhook(id: number): Promise<WebhookSubscription> {
  const webhook = await webhooks.read(id);
  if (!webhook) throw missing();
  return webhook;
}

async function checkedUrl(url: string): Promise<string> {
  try {
    return (await checkWebhookUrl(url, deliveryOptions())).url.href;
  } catch (error) {
    if (error instanceof AddressRefused) throw invalidField('url', error.reason);
    throw error;
  }
}

export async function createWebhook(input: WebhookCreateInput): Promise<Row> {
  const url = await checkedUrl(input.url);
  // It takes the changes dated after this moment (and placed after the feed's end now): exactly those
  // committed after its answer, however many were still pending when it was made.
  const startAt = Date.now();
  const start = await feedEnd();
  const id = await webhooks.allocateId();
  const secret = newWebhookSecret();
  const sealed = await seal(secret, sealedSecretOf(id));
  const webhook = await new Write(async (stamp) => {
    const made: WebhookSubscription = {
      id,
      url,
      events: input.events,
      description: input.description,
      enabled: true,
      disabledReason: '',
      secret: sealed,
      start: [start.n, start.i],
      startAt,
      version: 1,
      createdAt: stamp.now,
      updatedAt: stamp.now,
    };
    return plan(webhooks.create(stamp, made), made);
  }).commit();
  // A change sent after this answer must be dated after `startAt`, even by a clock read in the same millisecond.
  while (Date.now() <= startAt) await pause(1);
  // The secret, this once.
  return { ...webhookRow(webhook), SECRET: secret };
}

export const getWebhook = async (id: number): Promise<Row> => webhookRow(await readWebhook(id));

export async function listWebhooks(page: PageRequest): Promise<Page<Row>> {
  return mapPage(await webhooks.list('all', { order: 'id', reverse: false }, page), webhookRow);
}

export async function updateWebhook(id: number, input: WebhookUpdateInput): Promise<Row> {
  const url = input.url === undefined ? undefined : await checkedUrl(input.url);
  return webhookRow(
    await new Write(async (stamp) => {
      const current = await readWebhook(id);
      const enabled = input.enabled ?? current.enabled;
      const next: WebhookSubscription = {
        ...current,
        ...(url !== undefined ? { url } : {}),
        ...(input.events !== undefined ? { events: input.events } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        enabled,
        // Enabled again by a person: the reason it was disabled no longer holds.
        disabledReason: enabled ? '' : current.enabled ? '' : current.disabledReason,
        version: current.version + 1,
        updatedAt: stamp.now,
      };
      return plan(webhooks.replace(stamp, current, next, undefined), next);
    }).commit(),
  );
}

export async function deleteWebhook(id: number): Promise<void> {
  await stepsWrite(async (stamp) => webhooks.remove(stamp, await readWebhook(id), undefined)).commit();
}

/** The latest attempts, newest first. */
export async function listDeliveries(id: number, limit: number): Promise<Page<Row>> {
  await readWebhook(id);
  const items = await deliveryLog.latest(webhooks.key(id).pk, limit);
  const attempts = items.map((item): DeliveryAttempt => {
    const { changeId, attempt, date, status, error, nextAttempt } = StoredAttempt.parse(item);
    return { changeId, attempt, date, status, error, nextAttempt };
  });
  return { items: attempts.map(deliveryRow) };
}

/** How many changes one replay queues at most: replay again from a later cursor for more. */
export const REPLAY_MAX = 1000;

/**
 * Queues again every change after `from` (a position of the unfiltered feed) that the subscription's
 * patterns take, up to REPLAY_MAX; their deliveries carry the same `webhook-id` as the first time.
 */
export async function replayWebhook(id: number, from: unknown): Promise<Row> {
  const webhook = await readWebhook(id);
  const [n, i] = from === 'now' ? ((end) => [end.n, end.i])(await feedEnd()) : positionOf(from, 2);
  let position = { n: Number(n), i: Number(i) };
  let replayed = 0;
  const now = Date.now();
  while (replayed < REPLAY_MAX) {
    const page = await follow({ from: position, wanted: () => true, limit: Math.min(100, REPLAY_MAX - replayed) });
    const wanted = page.changes.filter((change) => matches(webhook.events, change.resource, change.type));
    if (wanted.length > 0) {
      // In the subscription's replay lane: paced there, after its live changes (lane.ts). A lane
      // recording a retry of one of these changes holds its job item a moment: the puts are the same
      // again, so they are retried through that conflict.
      await stepsWrite(() => wanted.map((change) => deliveryJob(id, change, now, { replay: true }))).commit();
    }
    replayed += wanted.length;
    if (page.changes.length === 0 || (page.next.n === position.n && page.next.i === position.i)) break;
    position = page.next;
  }
  return { ID: id, REPLAYED: replayed };
}
