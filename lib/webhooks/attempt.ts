/**
 * One delivery attempt (docs/changes-events-webhooks.md): a change delivered to a subscription, signed with its
 * secret, and what records it: the attempt in the delivery log, and, for a change taken from the
 * feed, a job to try it again when it failed; for a job (a retry, a replay), the job completed (2xx,
 * 410, or its schedule over) or due again. A 410 or three days of failures disable the subscription.
 */
import { changeRow } from '../changes/row.js';
import type { Change } from '../db/changes.js';
import { Conflict, WriteConflict } from '../db/errors.js';
import type { WriteStep } from '../db/transactions.js';
import { commitOnce, stepsWrite } from '../db/write-plan.js';
import type { WriteStamp } from '../db/stamp.js';
import { unseal } from '../sealed-secrets.js';
import { deliver } from './deliver.js';
import { disabling, type DisabledReason } from './disable.js';
import { deliveryJob, deliveryJobs, deliveryLog, jobKey, sealedSecretOf, webhooks, type DeliveryJob, type WebhookSubscription } from './entity.js';
import { logAttempt, logDisabled } from './metrics.js';
import { deliveryOptions } from './operations.js';
import { failingTooLong, nextAttemptAt } from './schedule.js';

/** A change to deliver: taken from the feed (its first attempt), or by a job; `change` undefined when the job's change is past its retention. */
export interface Delivery {
  change: Change | undefined;
  job?: DeliveryJob;
}

/** What came of a delivery, for its lane: `failed` is due again at `nextAt`, as the job `retry`. */
export type AttemptOutcome =
  | { kind: 'delivered' }
  | { kind: 'failed'; nextAt: number; attempt: number; retry: { pk: string; sk: string } }
  | { kind: 'disabled'; reason: DisabledReason }
  /** Nothing to deliver: the change is past its retention. */
  | { kind: 'dropped' };

export interface Attempted {
  outcome: AttemptOutcome;
  /** What records it (recordAttempts writes it). */
  steps: WriteStep[];
}

const lost = () => new WriteConflict();

/** Makes one attempt; its record is for the caller to write, with the others of its batch. */
export async function attemptDelivery(webhook: WebhookSubscription, { change, job }: Delivery): Promise<Attempted> {
  if (!change) return { outcome: { kind: 'dropped' }, steps: job ? [deliveryJobs.complete(job, lost)] : [] };
  const body = JSON.stringify(changeRow(change));
  const attempt = await deliver(webhook.url, await unseal(webhook.secret, sealedSecretOf(webhook.id)), change.id, body, deliveryOptions());
  const now = Date.now();
  const number = job?.attempt ?? 1;
  const firstAttemptAt = job?.firstAttemptAt ?? now;
  logAttempt(webhook.id, change.id, number, attempt, now - Date.parse(change.date));

  const gone = attempt.status === 410;
  const next = attempt.delivered || gone ? undefined : nextAttemptAt(number, now);
  const failing = !attempt.delivered && !gone && (next === undefined || failingTooLong(firstAttemptAt, next));
  const at = new Date(now).toISOString();
  const logged = deliveryLog.append(webhooks.key(webhook.id).pk, at, `${change.id}#${number}`, {
    changeId: change.id,
    attempt: number,
    date: at,
    status: attempt.status,
    error: attempt.error,
    nextAttempt: next !== undefined && !failing ? new Date(next).toISOString() : null,
  });
  const reason: DisabledReason | undefined = gone ? 'gone' : failing ? 'failing' : undefined;
  // Not delivered and not given up on: a next attempt is scheduled (without one, it is `failing`).
  if (attempt.delivered || reason || next === undefined) {
    return { outcome: reason ? { kind: 'disabled', reason } : { kind: 'delivered' }, steps: [logged, ...(job ? [deliveryJobs.complete(job, lost)] : [])] };
  }
  const again = job ? deliveryJobs.reschedule(job, next, { attempt: number + 1, firstAttemptAt }, lost) : deliveryJob(webhook.id, change, next, { attempt: 2, firstAttemptAt });
  return { outcome: { kind: 'failed', nextAt: next, attempt: number + 1, retry: jobKey(webhook.id, change.id) }, steps: [logged, again] };
}

/**
 * Records a batch of attempts in one transaction, with `moving` (the lane's cursor moved past the
 * changes it took from the feed) and the subscription disabled when one of them says so. When
 * something of it changed meanwhile (a job another worker took or a replay is writing, the
 * subscription, the cursor: two workers on one table, which then attempted the same, at least once),
 * each attempt is recorded alone, the lost ones let go, and the cursor moved alone. Whether the
 * cursor is where `moving` put it.
 */
export async function recordAttempts(webhook: WebhookSubscription, attempted: readonly Attempted[], moving: readonly WriteStep[] = []): Promise<boolean> {
  const disabled = attempted.map(({ outcome }) => outcome).find((outcome) => outcome.kind === 'disabled');
  const written = (steps: (stamp: WriteStamp) => readonly WriteStep[]) =>
    commitOnce(stepsWrite(steps)).then(
      () => true,
      (error: unknown) => {
        ignoreLost(error);
        return false;
      },
    );
  const disable = (stamp: WriteStamp) => (disabled?.kind === 'disabled' ? disabling(stamp, webhook, disabled.reason) : []);
  if (await written((stamp) => [...attempted.flatMap((a) => a.steps), ...moving, ...disable(stamp)])) {
    if (disabled?.kind === 'disabled') logDisabled(webhook.id, disabled.reason);
    return true;
  }
  for (const { steps } of attempted) if (steps.length) await written(() => steps);
  return moving.length ? written(() => moving) : true;
}

function ignoreLost(error: unknown): void {
  if (!(error instanceof WriteConflict) && !(error instanceof Conflict)) throw error;
}
