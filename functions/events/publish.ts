/**
 * The table's stream → the event bus (docs/changes-events-webhooks.md): each inserted change item (the mapping's filter
 * keeps only those) becomes one event, put in calls of up to 10. What EventBridge keeps refusing
 * goes, as its changes' keys, to the dead-letter queue (an alarm watches it; `npm run events --
 * redrive` puts them again), and the batch is done: records already put never go again. When
 * EventBridge takes none of a batch (an outage), the invocation fails, which raises the Errors alarm,
 * and the stream retries it, for RETRY_WINDOW_MS from the oldest record's write; past that, its
 * keys go to the dead-letter queue too. One log line per batch, also an EMF metrics document.
 */
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { pushStreamRecords } from '../../lib/events/push.js';

export const handler = (event: DynamoDBStreamEvent): Promise<void> => pushStreamRecords(event.Records);
