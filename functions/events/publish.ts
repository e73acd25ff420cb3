/**
 * The table's stream → the event bus (CONTRACT §12): each inserted change item (the mapping's filter
 * keeps only those) becomes one event, put in calls of up to 10. What EventBridge keeps refusing
 * goes, as its changes' keys, to the dead-letter queue (an alarm watches it; `npm run events --
 * redrive` puts them again), and the batch is done: records already put never go again. When
 * EventBridge takes none of a batch (an outage), the invocation fails, which raises the Errors alarm,
 * and the stream retries it, for RETRY_WINDOW_MS from the oldest record's write; past that, its
 * keys go to the dead-letter queue too. One log line per batch, also an EMF metrics document.
 */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { changeOfStreamImage } from '../../lib/db/changes.js';
import { keep } from '../../lib/events/dead-letters.js';
import { logBatch } from '../../lib/events/metrics.js';
import { publishChanges, type Publication } from '../../lib/events/publish.js';

/** How long a batch EventBridge takes none of is retried by the stream: a day, less an hour (the stream keeps records 24 hours). */
export const RETRY_WINDOW_MS = 23 * 3_600_000;

export class EventBridgeOutage extends Error {
  constructor(records: number) {
    super(`EventBridge took none of ${records} events: the stream retries the batch`);
    this.name = 'EventBridgeOutage';
  }
}

export const handler = async (event: DynamoDBStreamEvent): Promise<void> => {
  const changes = event.Records.map((record) => changeOfStreamImage(record.dynamodb?.NewImage ?? {}));
  let outcome: Publication;
  try {
    outcome = await publishChanges(changes);
  } catch (error) {
    outcome = { published: 0, refusals: 0, refused: changes.map((change) => ({ change, code: (error as Error).name })) };
  }
  const written = Math.min(...event.Records.map((record) => (record.dynamodb?.ApproximateCreationDateTime ?? Date.now() / 1000) * 1000));
  const lagMs = changes.length ? Math.max(...changes.map((change) => Date.now() - Date.parse(change.date))) : 0;
  const batch = { records: changes.length, published: outcome.published, refusals: outcome.refusals, failed: outcome.refused.length, lagMs };
  logBatch(batch);
  if (!outcome.refused.length) return;
  if (outcome.published === 0 && Date.now() - written < RETRY_WINDOW_MS) throw new EventBridgeOutage(changes.length);
  await keep(outcome.refused.map(({ change, code }) => ({ key: change.key, changeId: change.id, code })));
};
