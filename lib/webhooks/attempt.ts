/**
 * One attempt of one claimed job (CONTRACT §12): the change delivered, signed with the
 * subscription's secret; then, in one transaction on condition that the claim still holds, the
 * attempt in the delivery log and the job completed (2xx, 410, or its schedule over) or due again;
 * a 410 or three days of failures disable the subscription.
 */
import { changeRow } from '../changes/row.js';
import { changeOf } from '../db/changes.js';
import { Conflict, WriteConflict } from '../db/errors.js';
import type { Item } from '../db/items.js';
import { writeAtomically, type WriteStep } from '../db/transactions.js';
import { unseal } from '../sealed-secrets.js';
import { deliver } from './deliver.js';
import { disabling, type DisabledReason } from './disable.js';
import { deliveryJobs, deliveryLog, sealedSecretOf, webhooks, type WebhookSubscription } from './entity.js';
import { logAttempt, logDisabled } from './metrics.js';
import { deliveryOptions } from './operations.js';
import { failingTooLong, nextAttemptAt } from './schedule.js';

/** What came of a job, for its lane: `failed` is due again at `nextAt`. */
export type AttemptOutcome =
  | { kind: 'delivered' }
  | { kind: 'failed'; nextAt: number; job: Item }
  | { kind: 'disabled'; reason: DisabledReason }
  /** Nothing to deliver: the change is past its retention. */
  | { kind: 'dropped' };

const lost = () => new WriteConflict();

export async function attemptJob(claimed: Item, webhook: WebhookSubscription, changeItem: Item | undefined): Promise<AttemptOutcome> {
  if (!changeItem) {
    await writeAtomically([deliveryJobs.complete(claimed, lost)]).catch(ignoreLostClaim);
    return { kind: 'dropped' };
  }
  const change = changeOf(changeItem);
  const body = JSON.stringify(changeRow(change));
  const attempt = await deliver(webhook.url, await unseal(webhook.secret, sealedSecretOf(webhook.id)), change.id, body, deliveryOptions());
  const now = Date.now();
  const number = Number(claimed.attempt);
  const firstAttemptAt = Number(claimed.firstAttemptAt ?? now);
  logAttempt(webhook.id, claimed, attempt, now - Date.parse(change.date));

  const gone = attempt.status === 410;
  const next = attempt.delivered || gone ? undefined : nextAttemptAt(number, now);
  const failing = !attempt.delivered && !gone && (next === undefined || failingTooLong(firstAttemptAt, next));
  const at = new Date(now).toISOString();
  const steps: WriteStep[] = [
    deliveryLog.append(webhooks.key(webhook.id).pk, at, `${change.id}#${number}`, {
      changeId: change.id,
      attempt: number,
      date: at,
      status: attempt.status,
      error: attempt.error,
      nextAttempt: next !== undefined && !failing ? new Date(next).toISOString() : null,
    }),
  ];
  const reason: DisabledReason | undefined = gone ? 'gone' : failing ? 'failing' : undefined;
  if (attempt.delivered || reason) steps.push(deliveryJobs.complete(claimed, lost));
  else steps.push(deliveryJobs.reschedule(claimed, next!, { attempt: number + 1, firstAttemptAt }, lost));
  if (reason) steps.push(...disabling(webhook, reason, at));
  try {
    await writeAtomically(steps);
  } catch (error) {
    ignoreLostClaim(error);
    return attempt.delivered ? { kind: 'delivered' } : { kind: 'failed', nextAt: next ?? now, job: claimed };
  }
  if (reason) {
    logDisabled(webhook.id, reason);
    return { kind: 'disabled', reason };
  }
  return attempt.delivered ? { kind: 'delivered' } : { kind: 'failed', nextAt: next!, job: claimed };
}

/** The claim ran out and another worker took the job (it will attempt again), or the subscription changed meanwhile. */
function ignoreLostClaim(error: unknown): void {
  if (!(error instanceof WriteConflict) && !(error instanceof Conflict)) throw error;
}
