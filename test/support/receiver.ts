/** A real HTTP receiver of webhooks on 127.0.0.1, for the tests of their delivery: it keeps what it is sent and answers as told, by path. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterAll, beforeAll } from 'vitest';

export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** When it arrived (epoch ms). */
  receivedAt: number;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>`, once started. */
  base: string;
  received: Received[];
  /** What the receiver answers at `path` (204 unless told), given how many requests that path has had. */
  answer(path: string, respond: (response: ServerResponse, count: number) => void): void;
  /** What `path` has been sent, in order. */
  at(path: string): Received[];
}

/** Starts a receiver before this file's tests and stops it after them. */
export function useReceiver(): Receiver {
  const answers = new Map<string, (response: ServerResponse, count: number) => void>();
  const receiver: Receiver = {
    base: '',
    received: [],
    answer: (path, respond) => answers.set(path, respond),
    at: (path) => receiver.received.filter((r) => r.path === path),
  };
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      receiver.received.push({ path, headers: request.headers, body, receivedAt: Date.now() });
      (answers.get(path) ?? ((r) => r.writeHead(204).end()))(response, receiver.at(path).length);
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver.base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return receiver;
}
