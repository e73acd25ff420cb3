/**
 * What did not reach the event bus (docs/changes-events-webhooks.md), in an SQS queue of the stack
 * (STORE_EVENTS_DEAD_LETTERS_URL; SQS_ENDPOINT points the client elsewhere, a test's stand-in), two
 * kinds of letter:
 *   - the keys of changes whose events EventBridge kept refusing, which the publisher keeps, ten to
 *     a message batch;
 *   - a batch of the table's stream that the publisher could not handle at all before its records
 *     expired, which the stream mapping sends as its on-failure destination: a pointer (shard,
 *     sequence numbers, when its first and last records arrived), since the records themselves are
 *     gone from the stream. Its changes are still in the table (kept 365 days): they are the ones
 *     dated when its records arrived.
 * `npm run events -- redrive` reads both back, puts their changes on the bus again and deletes what
 * was put. SQS's client is loaded at its first need, from the Lambda runtime's own AWS SDK: the
 * publisher's cold start does not parse it.
 */
import { endpointConfig } from '../aws-endpoint.js';
import type { Key } from '../db/keys.js';

export interface DeadLetter {
  /** The change item's key, in the table. */
  key: Key;
  changeId: string;
  /** EventBridge's last error code. */
  code: string;
}

let sqsClient: Promise<import('@aws-sdk/client-sqs').SQSClient> | undefined;
const sqs = () => (sqsClient ??= import('@aws-sdk/client-sqs').then(({ SQSClient }) => new SQSClient(endpointConfig(process.env.SQS_ENDPOINT))));

const queueUrl = (): string => {
  const url = process.env.STORE_EVENTS_DEAD_LETTERS_URL;
  if (!url) throw new Error("STORE_EVENTS_DEAD_LETTERS_URL is not set (the stack's EventsDeadLettersUrl output)");
  return url;
};

/** Keeps the letters in the queue; throws when the queue would not take some (the stream retries). */
export async function keep(letters: readonly DeadLetter[]): Promise<void> {
  const { SendMessageBatchCommand } = await import('@aws-sdk/client-sqs');
  for (let start = 0; start < letters.length; start += 10) {
    const batch = letters.slice(start, start + 10);
    const result = await (await sqs()).send(new SendMessageBatchCommand({ QueueUrl: queueUrl(), Entries: batch.map((letter, k) => ({ Id: String(k), MessageBody: JSON.stringify(letter) })) }));
    if (result.Failed?.length) throw new Error(`the dead-letter queue refused ${result.Failed.length} letters`);
  }
}

/** A lost batch of the stream, as the mapping's on-failure destination describes it (its `DDBStreamBatchInfo`). */
export interface LostBatch {
  /** When its first and last records arrived in the stream (epoch ms; the stream gives whole seconds). */
  firstArrival: number;
  lastArrival: number;
  size: number;
}

export type Letter = { kind: 'change'; letter: DeadLetter } | { kind: 'batch'; batch: LostBatch };

/** A message of the queue as a letter: a mapping's on-failure record, or a change's key. */
function letterOf(body: string): Letter {
  const parsed = JSON.parse(body) as DeadLetter & { DDBStreamBatchInfo?: { approximateArrivalOfFirstRecord: string; approximateArrivalOfLastRecord: string; batchSize: number } };
  const info = parsed.DDBStreamBatchInfo;
  if (!info) return { kind: 'change', letter: parsed };
  return { kind: 'batch', batch: { firstArrival: Date.parse(info.approximateArrivalOfFirstRecord), lastArrival: Date.parse(info.approximateArrivalOfLastRecord), size: info.batchSize } };
}

/** Up to ten letters from the queue, each with what deletes it once handled. */
export async function receive(): Promise<Array<Letter & { handled: () => Promise<void> }>> {
  const { ReceiveMessageCommand, DeleteMessageCommand } = await import('@aws-sdk/client-sqs');
  const client = await sqs();
  const { Messages } = await client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl(), MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 60 }));
  return (Messages ?? []).map((message) => ({
    ...letterOf(message.Body ?? '{}'),
    handled: async () => {
      await client.send(new DeleteMessageCommand({ QueueUrl: queueUrl(), ReceiptHandle: message.ReceiptHandle }));
    },
  }));
}
