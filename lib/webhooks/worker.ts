/**
 * The webhooks' worker (docs/changes-events-webhooks.md). Each tick starts the lane of every enabled subscription that
 * has none running (lane.ts): each follows the feed from its own cursor and works its own retries
 * and replays. The worker never waits for a lane: a lane stuck on a receiver that does not answer
 * delays only its own deliveries. A lane starts no attempt that its record could not follow before
 * the deadline it was started with. One worker per table: the stack runs one at a time, and so does
 * `npm start` (a second one would deliver some changes twice, never lose one).
 * `npm start` ticks twice a second, for as long as it runs; on AWS the scheduled function ticks
 * until its minute nears its end, then lets its lanes finish (functions/webhooks/run.ts).
 */
import { log } from '../log.js';
import { deliveryJobs, replayLane, retryLane, webhooks, type WebhookSubscription } from './entity.js';
import { closedLane, emptyTally, runLane, type LaneState, type LaneTally } from './lane.js';
import { logTick } from './metrics.js';

export class WebhookWorker {
  private readonly lanes = new Map<number, LaneState>();
  private readonly running = new Map<number, Promise<void>>();
  private subscriptions: WebhookSubscription[] = [];
  /** What the lanes did since the last `take()`. */
  private tally: LaneTally = emptyTally();

  /** Starts the lanes of the enabled subscriptions that are not running; they work until `deadline` at most. How many it started. */
  async tick(deadline = Number.POSITIVE_INFINITY): Promise<number> {
    this.subscriptions = (await webhooks.readAll()).filter((w) => w.enabled);
    let started = 0;
    for (const webhook of this.subscriptions) {
      if (this.running.has(webhook.id)) continue;
      const state = this.lanes.get(webhook.id) ?? closedLane();
      this.lanes.set(webhook.id, state);
      const tally = emptyTally();
      const lane = runLane(webhook, state, deadline, tally)
        .catch((error: Error) => log('error', 'webhooks: a lane failed', { webhookId: webhook.id, error: { name: error.name, message: error.message } }))
        .finally(() => {
          this.running.delete(webhook.id);
          this.add(tally);
        });
      this.running.set(webhook.id, lane);
      started++;
    }
    return started;
  }

  private add(tally: LaneTally): void {
    if (tally.attempted || tally.jobs || tally.lastChangeAt !== undefined) logTick(tally.lastChangeAt, tally.jobs);
    const into = this.tally;
    into.attempted += tally.attempted;
    into.delivered += tally.delivered;
    into.failed += tally.failed;
    into.disabled += tally.disabled;
    into.jobs += tally.jobs;
  }

  /** Whether no lane is running. */
  get idle(): boolean {
    return this.running.size === 0;
  }

  /** Waits for the running lanes. */
  async settle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running.values()]);
  }

  /** What the lanes did since the last call. */
  take(): LaneTally {
    const taken = this.tally;
    this.tally = emptyTally();
    return taken;
  }

  /** When the next job of an enabled subscription is due (a retry, a probe, a replay), if any is queued. */
  nextDue(): Promise<number | undefined> {
    return deliveryJobs.nextDue(this.subscriptions.flatMap((w) => [retryLane(w.id), replayLane(w.id)]));
  }
}

/** The worker of this process (a Lambda container's, or `npm start`'s): its lanes' failure states last as long as it. */
export const webhookWorker = new WebhookWorker();

/**
 * One round, waited for to its end (tests, tools): a tick, then every lane it started until it has
 * nothing left. What its lanes did; `nextDue`, when the next job left is due.
 */
export async function runWebhooksOnce(): Promise<LaneTally & { nextDue: number | undefined }> {
  await webhookWorker.tick();
  await webhookWorker.settle();
  return { ...webhookWorker.take(), nextDue: await webhookWorker.nextDue() };
}
