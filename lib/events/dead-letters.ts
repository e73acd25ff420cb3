/**
 * The events EventBridge kept refusing (CONTRACT §12): their changes' keys, kept in an SQS queue of
 * the stack (STORE_EVENTS_DEAD_LETTERS_URL; SQS_ENDPOINT points the client elsewhere, a test's
 * stand-in), ten to a message batch. `npm run events -- redrive` reads them back, puts their changes
 * on the bus again and deletes what was put. SQS's client is loaded at its first need, from the
 * Lambda runtime's own AWS SDK: the publisher's cold start does not parse it.
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
    const result = await (await sqs()).send(
      new SendMessageBatchCommand({ QueueUrl: queueUrl(), Entries: batch.map((letter, k) => ({ Id: String(k), MessageBody: JSON.stringify(letter) })) }),
    );
    if (result.Failed?.length) throw new Error(`the dead-letter queue refused ${result.Failed.length} letters`);
  }
}

/** Up to ten letters from the queue, each with what deletes it once handled. */
export async function receive(): Promise<Array<{ letter: DeadLetter; handled: () => Promise<void> }>> {
  const { ReceiveMessageCommand, DeleteMessageCommand } = await import('@aws-sdk/client-sqs');
  const client = await sqs();
  const { Messages } = await client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl(), MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 60 }));
  return (Messages ?? []).map((message) => ({
    letter: JSON.parse(message.Body ?? '{}') as DeadLetter,
    handled: async () => {
      await client.send(new DeleteMessageCommand({ QueueUrl: queueUrl(), ReceiptHandle: message.ReceiptHandle }));
    },
  }));
}
