/**
 * A subscription's lane (CONTRACT §12: one subscription never slows another): its own share of the
 * worker and its own failure state. A lane takes its due jobs, live ones first and then, paced, its
 * replayed ones; claims them in one transaction, reads their changes in one batch, and attempts
 * them at once (at most LANE_CONCURRENCY). A failure opens its breaker until that job's next
 * attempt: the lane then attempts nothing until one probe, the job furthest along its schedule, is
 * due; a delivered probe closes it. It starts no attempt that could not be recorded before the
 * worker's deadline.
 */
import { WriteConflict } from '../db/errors.js';
import { readEach, readItem, type Item } from '../db/items.js';
import type { Key } from '../db/keys.js';
import { raced, writeAtomically } from '../db/transactions.js';
import { attemptJob, type AttemptOutcome } from './attempt.js';
import { ATTEMPT_TIMEOUT_MS } from './deliver.js';
import { deliveryJobs, liveLane, replayLane, type WebhookSubscription } from './entity.js';

/** Attempts a lane makes at once. */
export const LANE_CONCURRENCY = 8;
/** A replay's pace, per subscription. */
export const REPLAYS_PER_SECOND = 25;
/** How long an attempt's record may take after it: an attempt starts only if both fit before the deadline. */
const RECORD_MS = 2_000;
/** How long claimed jobs stay claimed: more than an attempt and its record. */
const CLAIM_MS = 60_000;

export interface LaneState {
  /** 0 when closed; else when the probe may go. */
  openUntil: number;
  /** The job to probe with: the one furthest along its schedule. */
  probe: Key | undefined;
  /** Replays the lane may take now (a bucket filled at REPLAYS_PER_SECOND, holding a second's worth). */
  replayTokens: number;
  refilledAt: number;
}

export interface LaneTally {
  attempted: number;
  delivered: number;
  failed: number;
  disabled: number;
}

export const closedLane = (): LaneState => ({ openUntil: 0, probe: undefined, replayTokens: REPLAYS_PER_SECOND, refilledAt: Date.now() });

function replaysAllowed(state: LaneState, now: number): number {
  state.replayTokens = Math.min(REPLAYS_PER_SECOND, state.replayTokens + ((now - state.refilledAt) / 1000) * REPLAYS_PER_SECOND);
  state.refilledAt = now;
  return Math.floor(state.replayTokens);
}

/** The jobs to attempt next: the probe alone when the breaker is half open; else live ones, then paced replays. */
async function nextJobs(webhookId: number, state: LaneState, now: number): Promise<Item[]> {
  if (state.openUntil > 0) {
    const probe = state.probe && (await readItem(state.probe));
    if (probe && Number(probe.dueAt) <= now) return [probe];
    return deliveryJobs.due(liveLane(webhookId), now, 1);
  }
  const live = await deliveryJobs.due(liveLane(webhookId), now, LANE_CONCURRENCY);
  const room = Math.min(LANE_CONCURRENCY - live.length, replaysAllowed(state, now));
  if (room <= 0) return live;
  const replays = await deliveryJobs.due(replayLane(webhookId), now, room);
  state.replayTokens -= replays.length;
  return [...live, ...replays];
}

/** Claims jobs (their due time moved on, on condition that it did not move): all in one transaction, or one by one when another worker holds some. */
async function claim(jobs: Item[]): Promise<Item[]> {
  const until = Date.now() + CLAIM_MS;
  const claimed = (job: Item): Item => ({ ...job, dueAt: until });
  try {
    await writeAtomically(jobs.map((job) => deliveryJobs.reschedule(job, until, {}, raced)));
    return jobs.map(claimed);
  } catch (error) {
    if (!(error instanceof WriteConflict)) throw error;
  }
  const won: Item[] = [];
  for (const job of jobs) {
    try {
      await writeAtomically([deliveryJobs.reschedule(job, until, {}, raced)]);
      won.push(claimed(job));
    } catch (error) {
      if (!(error instanceof WriteConflict)) throw error;
    }
  }
  return won;
}

function tally(outcomes: AttemptOutcome[], into: LaneTally): void {
  for (const outcome of outcomes) {
    if (outcome.kind === 'dropped') continue;
    into.attempted++;
    if (outcome.kind === 'delivered') into.delivered++;
    else into.failed++;
    if (outcome.kind === 'disabled') into.disabled++;
  }
}

/** Works a subscription's due jobs until none is left, its breaker opens, it is disabled, or the deadline nears. */
export async function runLane(webhook: WebhookSubscription, state: LaneState, deadline: number, into: LaneTally): Promise<void> {
  for (;;) {
    const now = Date.now();
    if (state.openUntil > now || now + ATTEMPT_TIMEOUT_MS + RECORD_MS > deadline) return;
    const jobs = await nextJobs(webhook.id, state, now);
    if (!jobs.length) return;
    const claimed = await claim(jobs);
    if (!claimed.length) return;
    const changes = await readEach(claimed.map((job) => job.changeKey as Key));
    const outcomes = await Promise.all(claimed.map((job, k) => attemptJob(job, webhook, changes[k])));
    tally(outcomes, into);
    if (outcomes.some((outcome) => outcome.kind === 'disabled')) return;
    const failures = outcomes.filter((outcome) => outcome.kind === 'failed');
    if (failures.length) {
      // Open until the soonest retry; probe with the job furthest along its schedule.
      const furthest = failures.reduce((a, b) => (Number(b.job.attempt) > Number(a.job.attempt) ? b : a));
      state.openUntil = Math.min(...failures.map((failure) => failure.nextAt));
      state.probe = { pk: String(furthest.job.pk), sk: String(furthest.job.sk) };
    } else if (outcomes.some((outcome) => outcome.kind === 'delivered')) {
      state.openUntil = 0;
      state.probe = undefined;
    }
  }
}
