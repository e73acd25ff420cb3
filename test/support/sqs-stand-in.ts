/**
 * A stand-in for an SQS queue on 127.0.0.1 (the dead letters of the event push; SQS exists only on
 * AWS): SendMessageBatch, ReceiveMessage and DeleteMessage in the API's JSON protocol, with the
 * MD5 digests the SDK checks. A received message is hidden until deleted, as within its visibility.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';

export interface SqsStandIn {
  /** The queue's URL (the SDK sends its requests there). */
  queueUrl: string;
  /** The bodies of the messages not deleted, in order. */
  bodies(): string[];
  /** Puts a message in the queue as another sender would (a stream mapping's on-failure record). */
  deliver(body: string): void;
  close(): Promise<void>;
}

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

export async function startSqsStandIn(): Promise<SqsStandIn> {
  const messages: Array<{ id: string; body: string; receipt: string | undefined }> = [];
  const server: Server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      const input = JSON.parse(raw || '{}') as { Entries?: Array<{ Id: string; MessageBody: string }>; MaxNumberOfMessages?: number; ReceiptHandle?: string };
      const answer = (json: unknown) => response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(json));
      switch (request.headers['x-amz-target']) {
        case 'AmazonSQS.SendMessageBatch': {
          const successful = (input.Entries ?? []).map((entry) => {
            const id = randomUUID();
            messages.push({ id, body: entry.MessageBody, receipt: undefined });
            return { Id: entry.Id, MessageId: id, MD5OfMessageBody: md5(entry.MessageBody) };
          });
          return answer({ Successful: successful, Failed: [] });
        }
        case 'AmazonSQS.ReceiveMessage': {
          const visible = messages.filter((message) => message.receipt === undefined).slice(0, input.MaxNumberOfMessages ?? 1);
          for (const message of visible) message.receipt = randomUUID();
          return answer({ Messages: visible.map((message) => ({ MessageId: message.id, ReceiptHandle: message.receipt, Body: message.body, MD5OfBody: md5(message.body) })) });
        }
        case 'AmazonSQS.DeleteMessage': {
          const index = messages.findIndex((message) => message.receipt === input.ReceiptHandle);
          if (index >= 0) messages.splice(index, 1);
          return answer({});
        }
        default:
          return response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify({ __type: 'com.amazonaws.sqs#UnsupportedOperation' }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    queueUrl: `http://127.0.0.1:${port}/000000000000/store-api-dead-letters`,
    bodies: () => messages.map((message) => message.body),
    deliver: (body) => void messages.push({ id: randomUUID(), body, receipt: undefined }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
