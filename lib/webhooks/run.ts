/**
 * The webhooks' work (CONTRACT §12), one round at a time:
 *   dispatch  follows the change feed from its own cursor and, for each change and each enabled
 *             subscription that takes it (made before it), queues a delivery job, in the same
 *             transaction as the cursor's move: a change is dispatched once.
 *   deliver   claims the jobs that are due, one worker per job, and makes one attempt each: a 2xx
 *             completes it; a 410 disables the subscription (`gone`); any other failure is due again
 *             on the schedule, until three days of failures disable it (`failing`). Every attempt is
 *             in the subscription's delivery log and one log line (an EMF document).
 * On AWS a scheduled function runs rounds for most of a minute; `npm start` runs them every second.
 */
import { changeRow } from '../changes/row.js';
import { changeOf, type Change } from '../db/changes.js';
import { Conflict, Gone, WriteConflict } from '../db/errors.js';
import { feedEnd, follow, type FeedPage, type FeedPosition } from '../db/feed.js';
import { readItem, type Item } from '../db/items.js';
import { table } from '../db/table.js';
import { ABSENT, holds, put, raced, writeAtomically, type WriteStep } from '../db/transactions.js';
import { log, metricsDirective } from '../log.js';
import { WEBHOOKS_NAMESPACE } from './metrics.js';
import { deliver } from './deliver.js';
import { deliveryJobs, deliveryLogKey, DISPATCH_CURSOR, firstDelivery, sealedSecretOf, webhooks, type WebhookSubscription } from './entity.js';
import { unseal } from '../sealed-secrets.js';
import { deliveryOptions } from './operations.js';
import { matches } from './schema.js';
import { failingTooLong, nextAttemptAt } from './schedule.js';

/** How long a claimed job stays claimed: more than an attempt's 10 s timeout. */
const CLAIM_MS = 60_000;
/** Attempts are kept in the delivery log this long. */
const LOG_DAYS = 30;

const after = (a: FeedPosition, b: FeedPosition) => a.n > b.n || (a.n === b.n && a.i > b.i);

/**
 * Whether a subscription takes a change placed at `at`: its patterns match, and the change came
 * after the subscription was made (placed after its start, and dated after its create began, so
 * that changes committed before it but placed after are not its own).
 */
const takes = (w: WebhookSubscription, change: Change, at: FeedPosition): boolean =>
  after(at, { n: w.start[0], i: w.start[1] }) && (w.startAt === undefined || Date.parse(change.date) > w.startAt) && matches(w.events, change.resource, change.type);
const enabledSubscriptions = async (): Promise<WebhookSubscription[]> => (await webhooks.readAll()).filter((w) => w.enabled);

/** Queues the jobs of the changes placed since the last round: how many it queued, and the time of the last change it read. */
export async function dispatchChanges(subscriptions: WebhookSubscription[]): Promise<{ queued: number; lastChangeAt: number | undefined }> {
  const cursorItem = await readItem(DISPATCH_CURSOR);
  const stored = cursorItem?.position as [number, number] | undefined;
  if (subscriptions.length === 0 && stored === undefined) return { queued: 0, lastChangeAt: undefined };
  // The first round starts where the earliest subscription started.
  let position: FeedPosition = stored
    ? { n: stored[0], i: stored[1] }
    : subscriptions.map((w) => ({ n: w.start[0], i: w.start[1] })).reduce((a, b) => (after(a, b) ? b : a));
  let cursorExists = stored !== undefined;
  let page: FeedPage;
  try {
    page = await follow({ from: position, wanted: () => true, limit: 90 });
  } catch (error) {
    if (!(error instanceof Gone)) throw error;
    // Not run for longer than the changes are kept: what was between is gone; go on from the end.
    log('warn', 'webhooks: the dispatcher was behind the changes\' retention; it goes on from the newest change', {});
    page = { changes: [], positions: [], next: await feedEnd() };
  }
  // The cursor moves from where it was read (or is made, the first time): two dispatchers never both move it.
  const moveCursor = (to: FeedPosition): WriteStep =>
    put({ ...DISPATCH_CURSOR, position: [to.n, to.i] }, cursorExists ? holds('position', [position.n, position.i]) : ABSENT, raced);
  let jobs: WriteStep[] = [];
  let queued = 0;
  /** Writes the jobs so far with the cursor's move to `to`; false when another dispatcher moved it first (two `npm start` on one table). */
  const flush = async (to: FeedPosition): Promise<boolean> => {
    try {
      await writeAtomically([...jobs, moveCursor(to)]);
    } catch (error) {
      if (error instanceof WriteConflict) return false;
      throw error;
    }
    queued += jobs.length;
    jobs = [];
    position = to;
    cursorExists = true;
    return true;
  };
  const now = Date.now();
  const last = page.changes.at(-1);
  const lastChangeAt = last && Date.parse(last.date);
  for (const [k, change] of page.changes.entries()) {
    const at = page.positions[k]!;
    const takers = subscriptions.filter((w) => takes(w, change, at));
    // A transaction holds 100 steps: the cursor moves with the jobs of the changes before this one.
    if (jobs.length + takers.length > 99 && !(await flush(page.positions[k - 1]!))) return { queued, lastChangeAt };
    jobs.push(...takers.map((w) => firstDelivery(w.id, change, now)));
  }
  if (page.changes.length > 0 || after(page.next, position)) await flush(page.next);
  return { queued, lastChangeAt };
}

interface RoundOutcome {
  attempted: number;
  delivered: number;
  failed: number;
  disabled: number;
}

function logAttempt(webhookId: number, job: Item, attempt: Awaited<ReturnType<typeof deliver>>, lagMs: number): void {
  const fields = { webhookId, changeId: job.changeId, attempt: job.attempt, status: attempt.status, error: attempt.error, latencyMs: attempt.latencyMs };
  log(attempt.delivered ? 'info' : 'warn', 'delivery', {
    ...fields,
    Deliveries: 1,
    Failures: attempt.delivered ? 0 : 1,
    Retries: Number(job.attempt) > 1 ? 1 : 0,
    ...(attempt.delivered ? { Lag: lagMs } : {}),
    ...metricsDirective(WEBHOOKS_NAMESPACE, [['Deliveries', 'Count'], ['Failures', 'Count'], ['Retries', 'Count'], ...(attempt.delivered ? [['Lag', 'Milliseconds'] as const] : [])]),
  });
}

function logDisabled(webhook: WebhookSubscription, reason: string): void {
  log('warn', 'webhook disabled', { webhookId: webhook.id, reason, Disabled: 1, ...metricsDirective(WEBHOOKS_NAMESPACE, [['Disabled', 'Count']]) });
}

/** One attempt of one due job, claimed first; what came of it. */
async function work(job: Item, subscriptions: ReadonlyMap<number, WebhookSubscription>, outcome: RoundOutcome): Promise<void> {
  const claimedUntil = Date.now() + CLAIM_MS;
  try {
    await writeAtomically([deliveryJobs.reschedule(job, claimedUntil, {}, raced)]);
  } catch (error) {
    if (error instanceof WriteConflict) return; // another worker has it
    throw error;
  }
  const claimed = { ...job, dueAt: claimedUntil };
  const lost = () => new WriteConflict();
  const webhookId = Number(job.webhookId);
  // The subscription as the round read it for dispatch (a change made since takes effect next round, a second later).
  const webhook = subscriptions.get(webhookId);
  const item = await readItem(job.changeKey as { pk: string; sk: string });
  // A subscription deleted or disabled, or a change past its retention: nothing left to deliver.
  if (!webhook?.enabled || !item) {
    await writeAtomically([deliveryJobs.complete(claimed, lost)]);
    return;
  }
  const change: Change = changeOf(item);
  const body = JSON.stringify(changeRow(change));
  const attempt = await deliver(webhook.url, await unseal(webhook.secret, sealedSecretOf(webhookId)), change.id, body, deliveryOptions());
  const now = Date.now();
  const firstAttemptAt = Number(job.firstAttemptAt ?? now);
  outcome.attempted++;
  logAttempt(webhookId, job, attempt, now - Date.parse(change.date));

  const gone = attempt.status === 410;
  const next = attempt.delivered || gone ? undefined : nextAttemptAt(Number(job.attempt), now);
  const failing = !attempt.delivered && !gone && (next === undefined || failingTooLong(firstAttemptAt, next));
  const at = new Date(now).toISOString();
  const logged = put({
    ...deliveryLogKey(webhookId, at, change.id, Number(job.attempt)),
    changeId: change.id,
    attempt: Number(job.attempt),
    date: at,
    status: attempt.status,
    error: attempt.error,
    nextAttempt: next !== undefined && !failing ? new Date(next).toISOString() : null,
    [table.ttlAttribute]: Math.floor(now / 1000) + LOG_DAYS * 86_400,
  });
  const steps: WriteStep[] = [logged];
  if (attempt.delivered || gone || failing) steps.push(deliveryJobs.complete(claimed, lost));
  else steps.push(deliveryJobs.reschedule(claimed, next!, { attempt: Number(job.attempt) + 1, firstAttemptAt }, lost));
  if (gone || failing) {
    const reason = gone ? 'gone' : 'failing';
    steps.push(...webhooks.replace(webhook, { ...webhook, enabled: false, disabledReason: reason, version: webhook.version + 1, updatedAt: at }, undefined));
    outcome.disabled++;
    logDisabled(webhook, reason);
  }
  if (attempt.delivered) outcome.delivered++;
  else outcome.failed++;
  try {
    await writeAtomically(steps);
  } catch (error) {
    // The claim ran out and another worker took the job (it will attempt again), or the subscription changed meanwhile.
    if (!(error instanceof WriteConflict) && !(error instanceof Conflict)) throw error;
  }
}

/** Attempts the jobs due now, a few at a time. */
export async function deliverDue(subscriptions: ReadonlyMap<number, WebhookSubscription>, limit = 25): Promise<RoundOutcome> {
  const outcome: RoundOutcome = { attempted: 0, delivered: 0, failed: 0, disabled: 0 };
  const due = await deliveryJobs.due(Date.now(), limit);
  for (let start = 0; start < due.length; start += 5) await Promise.all(due.slice(start, start + 5).map((job) => work(job, subscriptions, outcome)));
  return outcome;
}

/** The jobs a round attempts at most: a round that finds this many due has a queue behind it. */
const ROUND_JOBS = 25;

/**
 * One round: dispatch what the feed has, then attempt what is due; `nextDue`: when the next job left
 * is due. A round that found work writes one line, also an EMF document: `DispatchLag` (how old the
 * last change the dispatcher read was) and `DueJobs` (the jobs due it found, ROUND_JOBS at most).
 */
export async function runWebhooksOnce(): Promise<RoundOutcome & { queued: number; nextDue: number | undefined }> {
  const subscriptions = await enabledSubscriptions();
  const { queued, lastChangeAt } = await dispatchChanges(subscriptions);
  const outcome = await deliverDue(new Map(subscriptions.map((w) => [w.id, w])), ROUND_JOBS);
  if (lastChangeAt !== undefined || outcome.attempted > 0) {
    log('info', 'webhooks round', {
      DispatchLag: lastChangeAt === undefined ? 0 : Math.max(0, Date.now() - lastChangeAt),
      DueJobs: outcome.attempted,
      ...metricsDirective(WEBHOOKS_NAMESPACE, [['DispatchLag', 'Milliseconds'], ['DueJobs', 'Count']]),
    });
  }
  return { queued, ...outcome, nextDue: await deliveryJobs.nextDue() };
}
