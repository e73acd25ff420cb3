/**
 * A batch of the table's stream (inserted change items) to the event bus: their changes put
 * (publish.ts), the keys of what EventBridge kept refusing kept (dead-letters.ts), and an outage
 * given back to the stream to retry for a day. What functions/events/publish.ts runs.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { changeOfStreamImage } from '../db/changes.js';
import { keep } from './dead-letters.js';
import { logBatch } from './metrics.js';
import { publishChanges, type Publication } from './publish.js';

/** How long a batch EventBridge takes none of is retried by the stream: a day, less an hour (the stream keeps records 24 hours). */
export const RETRY_WINDOW_MS = 23 * 3_600_000;

export class EventBridgeOutage extends Error {
  constructor(records: number) {
    super(`EventBridge took none of ${records} events: the stream retries the batch`);
    this.name = 'EventBridgeOutage';
  }
}

/** Puts a batch of the stream's records of inserted change items on the bus (see functions/events/publish.ts). */
export async function pushStreamRecords(records: readonly DynamoDBRecord[]): Promise<void> {
  const changes = records.map((record) => changeOfStreamImage(record.dynamodb?.NewImage ?? {}));
  let outcome: Publication;
  try {
    outcome = await publishChanges(changes);
  } catch (error) {
    outcome = { published: 0, refusals: 0, refused: changes.map((change) => ({ change, code: (error as Error).name })) };
  }
  const written = Math.min(...records.map((record) => (record.dynamodb?.ApproximateCreationDateTime ?? Date.now() / 1000) * 1000));
  const lagMs = changes.length ? Math.max(...changes.map((change) => Date.now() - Date.parse(change.date))) : 0;
  const batch = { records: changes.length, published: outcome.published, refusals: outcome.refusals, failed: outcome.refused.length, lagMs };
  logBatch(batch);
  if (!outcome.refused.length) return;
  if (outcome.published === 0 && Date.now() - written < RETRY_WINDOW_MS) throw new EventBridgeOutage(changes.length);
  await keep(outcome.refused.map(({ change, code }) => ({ key: change.key, changeId: change.id, code })));
}
