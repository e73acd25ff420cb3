/**
 * The table's stream → the event bus: each inserted change item (the mapping's filter keeps only
 * those) becomes one event. A record whose event EventBridge keeps refusing is reported as a batch
 * item failure, so that Lambda retries from it; past the mapping's retries it goes to the
 * dead-letter queue. One log line per batch, also an EMF metrics document.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { publishStreamRecord } from '../../lib/events/publish.js';
import { logBatch } from '../../lib/events/metrics.js';

const processor = new BatchProcessor(EventType.DynamoDBStreams);

export const handler = async (event: DynamoDBStreamEvent, context: Context) => {
  const batch = { published: 0, refusals: 0, lagMs: 0 };
  const publish = async (record: DynamoDBRecord) => {
    const { refusals, date } = await publishStreamRecord(record.dynamodb?.NewImage ?? {});
    batch.published++;
    batch.refusals += refusals;
    batch.lagMs = Math.max(batch.lagMs, Date.now() - Date.parse(date));
  };
  const response = await processPartialResponse(event, publish, processor, { context, throwOnFullBatchFailure: false });
  logBatch({ records: event.Records.length, ...batch, failed: response.batchItemFailures.length });
  return response;
};
