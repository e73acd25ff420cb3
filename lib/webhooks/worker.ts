/**
 * The webhooks' worker (CONTRACT §12). Each tick dispatches what the feed has (dispatch.ts), then
 * starts the lane of every enabled subscription that has none running (lane.ts). It never waits for
 * a lane: a lane stuck on a receiver that does not answer delays only its own deliveries. A lane
 * starts no attempt that its record could not follow before the deadline it was started with.
 * `npm start` ticks twice a second, for as long as it runs; on AWS the scheduled function ticks
 * until its minute nears its end, then lets its lanes finish (functions/webhooks/run.ts).
 */
import { deliveryJobs, liveLane, replayLane, type WebhookSubscription } from './entity.js';
import { dispatchChanges, enabledSubscriptions } from './dispatch.js';
import { closedLane, runLane, type LaneState, type LaneTally } from './lane.js';
import { log } from '../log.js';
import { logTick } from './metrics.js';

export interface TickOutcome {
  /** Jobs the dispatch queued. */
  queued: number;
  /** Lanes started. */
  started: number;
}

export class WebhookWorker {
  private readonly lanes = new Map<number, LaneState>();
  private readonly running = new Map<number, Promise<void>>();
  private subscriptions: WebhookSubscription[] = [];
  /** What the lanes did since the last `take()`. */
  private tally: LaneTally = { attempted: 0, delivered: 0, failed: 0, disabled: 0 };

  /** Dispatches, then starts the lanes that are not running; lanes work until `deadline` at most. */
  async tick(deadline = Number.POSITIVE_INFINITY): Promise<TickOutcome> {
    this.subscriptions = await enabledSubscriptions();
    const { queued, lastChangeAt } = await dispatchChanges(this.subscriptions);
    let started = 0;
    for (const webhook of this.subscriptions) {
      if (this.running.has(webhook.id)) continue;
      const state = this.lanes.get(webhook.id) ?? closedLane();
      this.lanes.set(webhook.id, state);
      const lane = runLane(webhook, state, deadline, this.tally)
        .catch((error: Error) => log('error', 'webhooks: a lane failed', { webhookId: webhook.id, error: { name: error.name, message: error.message } }))
        .finally(() => this.running.delete(webhook.id));
      this.running.set(webhook.id, lane);
      started++;
    }
    if (lastChangeAt !== undefined || queued > 0) logTick(lastChangeAt, queued);
    return { queued, started };
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
    this.tally = { attempted: 0, delivered: 0, failed: 0, disabled: 0 };
    return taken;
  }

  /** When the next job of an enabled subscription is due (a retry, a probe), if any is queued. */
  nextDue(): Promise<number | undefined> {
    return deliveryJobs.nextDue(this.subscriptions.flatMap((w) => [liveLane(w.id), replayLane(w.id)]));
  }
}

/** The worker of this process (a Lambda container's, or `npm start`'s): its lanes' failure states last as long as it. */
export const webhookWorker = new WebhookWorker();

/**
 * One round, waited for to its end (tests, tools): a tick, then every lane it started until it has
 * nothing due. What it queued and what its lanes did; `nextDue`, when the next job left is due.
 */
export async function runWebhooksOnce(): Promise<LaneTally & { queued: number; nextDue: number | undefined }> {
  const { queued } = await webhookWorker.tick();
  await webhookWorker.settle();
  return { queued, ...webhookWorker.take(), nextDue: await webhookWorker.nextDue() };
}
