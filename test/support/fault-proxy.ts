/**
 * A TCP proxy between the API and DynamoDB Local that can stall or cut the connection on command,
 * as a stalled or unreachable DynamoDB would:
 *   pass   bytes flow both ways (after a stall, what was held back is delivered, late);
 *   stall  connections are accepted and bytes held back, both ways, until `pass` or `drop`;
 *   drop   what was held back is thrown away and every connection closed (a process that died);
 *   reset  every new connection is cut at once.
 * `stallOn(marker)` passes bytes until a request carrying `marker` (for example the X-Amz-Target of
 * TransactWriteItems) arrives, and stalls from that request on.
 * `loseAnswerOn(...markers)` delivers the request carrying a marker, then cuts its connection instead
 * of answering: the write is applied, and the client never learns it. Each marker does it once.
 */
import { createServer, connect, type Socket } from 'node:net';

type Mode = 'pass' | 'stall' | 'reset';

interface Link {
  client: Socket;
  upstream: Socket;
  toUpstream: Buffer[];
  toClient: Buffer[];
  /** The answer to what was sent on this link is thrown away, and the link cut. */
  answerLost?: boolean;
}

export interface FaultProxy {
  endpoint: string;
  pass(): void;
  stall(): void;
  stallOn(marker: string): void;
  loseAnswerOn(...markers: string[]): void;
  /** How many answers `loseAnswerOn` has thrown away so far. */
  lostAnswers(): number;
  drop(): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const { hostname, port } = new URL(target);
  let mode: Mode = 'pass';
  let marker: string | undefined;
  const lostAnswerMarkers = new Set<string>();
  let lostAnswers = 0;
  const links = new Set<Link>();

  const flush = (link: Link) => {
    for (const chunk of link.toUpstream.splice(0)) link.upstream.write(chunk);
    for (const chunk of link.toClient.splice(0)) if (!link.client.destroyed) link.client.write(chunk);
    // The client gave up while its request was held back: the request still arrives, then the link ends.
    if (link.client.destroyed) {
      link.upstream.end();
      links.delete(link);
    }
  };

  const server = createServer((client) => {
    if (mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(Number(port), hostname);
    const link: Link = { client, upstream, toUpstream: [], toClient: [] };
    links.add(link);
    client.on('data', (chunk: Buffer) => {
      if (marker && chunk.includes(marker)) {
        marker = undefined;
        mode = 'stall';
      }
      for (const lostAnswerMarker of lostAnswerMarkers) {
        if (!chunk.includes(lostAnswerMarker)) continue;
        lostAnswerMarkers.delete(lostAnswerMarker);
        link.answerLost = true;
      }
      if (mode === 'pass') upstream.write(chunk);
      else link.toUpstream.push(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (link.answerLost) {
        if (!client.destroyed) lostAnswers++;
        client.destroy();
        upstream.destroy();
        return;
      }
      if (mode === 'pass' && !client.destroyed) client.write(chunk);
      else link.toClient.push(chunk);
    });
    const forget = () => {
      // A request held back is still delivered when the stall ends, as a stalled server's socket would.
      if (link.toUpstream.length) return;
      upstream.destroy();
      links.delete(link);
    };
    client.on('close', forget);
    client.on('error', () => client.destroy());
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => {
      client.destroy();
      links.delete(link);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the fault proxy has no port');
  const endpoint = `http://127.0.0.1:${address.port}`;

  const everyLink = () => [...links];
  return {
    endpoint,
    pass: () => {
      mode = 'pass';
      marker = undefined;
      for (const link of everyLink()) flush(link);
    },
    stall: () => {
      mode = 'stall';
    },
    stallOn: (text: string) => {
      marker = text;
    },
    loseAnswerOn: (...markers: string[]) => {
      for (const text of markers) lostAnswerMarkers.add(text);
    },
    lostAnswers: () => lostAnswers,
    drop: () => {
      for (const link of everyLink()) {
        link.toUpstream.length = 0;
        link.toClient.length = 0;
        link.client.destroy();
        link.upstream.destroy();
      }
      links.clear();
      mode = 'pass';
      marker = undefined;
    },
    reset: () => {
      mode = 'reset';
      for (const link of everyLink()) link.client.resetAndDestroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const link of everyLink()) {
          link.client.destroy();
          link.upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
