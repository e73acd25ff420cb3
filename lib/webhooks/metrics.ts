/**
 * What the webhooks' work tells operations: one log line per attempt, per subscription disabled and
 * per tick that found work, each also an EMF document in this namespace: Deliveries, Failures,
 * Retries, Lag (commit to delivery), Disabled, DispatchLag, DueJobs.
 */
import { log, metricsDirective } from '../log.js';
import type { Attempt } from './deliver.js';

export const WEBHOOKS_NAMESPACE = 'StoreApi/Webhooks';

export function logAttempt(webhookId: number, changeId: string, number: number, attempt: Attempt, lagMs: number): void {
  const fields = { webhookId, changeId, attempt: number, status: attempt.status, error: attempt.error, latencyMs: attempt.latencyMs };
  log(attempt.delivered ? 'info' : 'warn', 'delivery', {
    ...fields,
    Deliveries: 1,
    Failures: attempt.delivered ? 0 : 1,
    Retries: number > 1 ? 1 : 0,
    ...(attempt.delivered ? { Lag: lagMs } : {}),
    ...metricsDirective(WEBHOOKS_NAMESPACE, [['Deliveries', 'Count'], ['Failures', 'Count'], ['Retries', 'Count'], ...(attempt.delivered ? [['Lag', 'Milliseconds'] as const] : [])]),
  });
}

export function logDisabled(webhookId: number, reason: string): void {
  log('warn', 'webhook disabled', { webhookId, reason, Disabled: 1, ...metricsDirective(WEBHOOKS_NAMESPACE, [['Disabled', 'Count']]) });
}

/** `DispatchLag`: how old the last change a lane took from the feed was; `DueJobs`: the jobs (retries, replays) the lanes took. */
export function logTick(lastChangeAt: number | undefined, dueJobs: number): void {
  log('info', 'webhooks round', {
    DispatchLag: lastChangeAt === undefined ? 0 : Math.max(0, Date.now() - lastChangeAt),
    DueJobs: dueJobs,
    ...metricsDirective(WEBHOOKS_NAMESPACE, [
      ['DispatchLag', 'Milliseconds'],
      ['DueJobs', 'Count'],
    ]),
  });
}
