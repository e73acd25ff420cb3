/**
 * A stand-in for EventBridge's PutEvents on 127.0.0.1 (EventBridge exists only on AWS): it speaks
 * the API's JSON protocol, keeps the entries it takes, and refuses entries on command, entry by
 * entry, as the real one does when throttled (`FailedEntryCount`).
 */
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';

export interface Entry {
  Source: string;
  DetailType: string;
  Detail: string;
  EventBusName: string;
  Time?: number;
}

export interface EventBridgeStandIn {
  endpoint: string;
  /** Entries taken, in order. */
  taken: Entry[];
  /** The entries of each PutEvents call, in order. */
  calls: number[];
  /** The refusals in force (empty it to refuse no more). */
  refusing: unknown[];
  /** Refuses the entries `matching` takes, `times` times each (Infinity: always). */
  refuse(matching: (entry: Entry) => boolean, times: number, code?: string): void;
  close(): Promise<void>;
}

export async function startEventBridgeStandIn(): Promise<EventBridgeStandIn> {
  const taken: Entry[] = [];
  const calls: number[] = [];
  const rules: Array<{ matching: (entry: Entry) => boolean; left: Map<string, number>; times: number; code: string }> = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (request.headers['x-amz-target'] !== 'AWSEvents.PutEvents') {
        response.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify({ __type: 'UnknownOperationException' }));
        return;
      }
      const entries = (JSON.parse(body) as { Entries: Entry[] }).Entries;
      calls.push(entries.length);
      const results = entries.map((entry) => {
        const rule = rules.find((candidate) => candidate.matching(entry));
        if (rule) {
          const left = rule.left.get(entry.Detail) ?? rule.times;
          if (left > 0) {
            rule.left.set(entry.Detail, left - 1);
            return { ErrorCode: rule.code, ErrorMessage: 'refused by the stand-in' };
          }
        }
        taken.push(entry);
        return { EventId: randomUUID() };
      });
      const failed = results.filter((result) => 'ErrorCode' in result).length;
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify({ FailedEntryCount: failed, Entries: results }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    taken,
    calls,
    refusing: rules,
    refuse: (matching, times, code = 'ThrottlingException') => rules.push({ matching, times, code, left: new Map() }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
