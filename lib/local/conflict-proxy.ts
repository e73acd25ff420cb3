/**
 * Tooling, never bundled into a Lambda: an HTTP proxy in front of DynamoDB Local that gives it
 * DynamoDB's own transaction semantics (developer guide, "Transaction conflict handling"), which the
 * emulator lacks: DynamoDB Local makes a second transaction on an item wait, DynamoDB refuses it.
 *
 * - A TransactWriteItems locks its items, is held `holdMs` (DynamoDB's transactions take a few
 *   milliseconds to prepare and commit) and forwarded; its items stay locked until the answer.
 * - A TransactWriteItems or TransactGetItems touching a locked item is cancelled:
 *   `TransactionCanceledException`, reason `TransactionConflict` for those items, `None` for the
 *   others, in the shape DynamoDB sends and the SDK parses. A TransactWriteItems on an item a
 *   TransactGetItems is reading is cancelled too.
 * - A PutItem, UpdateItem, DeleteItem or BatchWriteItem on a locked item fails with
 *   `TransactionConflictException`, which the SDK does not retry.
 * - A TransactWriteItems carries a ClientRequestToken (the SDK sets one, and sends it again on its
 *   retries): within 10 minutes, the same token again with the same request answers as the first
 *   one did once it succeeded, writing nothing (a retry that waits for the first while it runs), and
 *   with another request is `IdempotentParameterMismatchException`. DynamoDB Local ignores the token,
 *   so an SDK retry of a transaction that committed after its time-out met its own write.
 * - Optionally, writes to one partition key past a rate are throttled (`ThrottlingException`, and
 *   `ThrottlingError` in a cancelled transaction), as a hot partition is.
 *
 * Items are named by their table's key attributes, which it asks DynamoDB Local once per table
 * (DescribeTable, with the credentials of the request that named the table). Everything else
 * passes through unchanged. Used by `npm start` with STORE_LOCAL_CONFLICTS=1, the tests of
 * concurrent writers and `npm run bench`.
 */
import { createServer, request as httpRequest, Agent, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { setTimeout as pause } from 'node:timers/promises';

export interface ConflictProxyOptions {
  /** DynamoDB Local's endpoint. */
  target: string;
  /** How long a TransactWriteItems holds its items before it is forwarded (default 5 ms). */
  holdMs?: number;
  /** Writes to items of this partition key past `writesPerSecond` are throttled. */
  throttle?: { partitionKey: string; writesPerSecond: number };
  /** Where to listen (default: a free port on 127.0.0.1). */
  port?: number;
}

/** What the proxy refused, by kind: to see a run's conflicts. */
export interface ConflictCounts {
  /** Transactions (write or get) cancelled for a conflict. */
  cancelled: number;
  /** Single writes refused with TransactionConflictException. */
  refused: number;
  throttled: number;
}

export interface ConflictProxy {
  endpoint: string;
  counts(): ConflictCounts;
  close(): Promise<void>;
}

type AttributeValue = Record<string, unknown>;
type Json = Record<string, unknown>;

const ERROR_PREFIX = 'com.amazonaws.dynamodb.v20120810#';

/** One item, by table and key: `table` + its key attributes' values, in the table's key order. */
type ItemName = string;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** How long DynamoDB keeps a transaction's ClientRequestToken. */
const TOKEN_MS = 10 * 60_000;

export async function startConflictProxy(options: ConflictProxyOptions): Promise<ConflictProxy> {
  const target = new URL(options.target);
  const holdMs = options.holdMs ?? 5;
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const keySchemas = new Map<string, Promise<string[]>>();
  /** Items locked by a TransactWriteItems in flight. */
  const writing = new Map<ItemName, number>();
  /** Items read by a TransactGetItems in flight. */
  const reading = new Map<ItemName, number>();
  const counts: ConflictCounts = { cancelled: 0, refused: 0, throttled: 0 };
  const bucket = { tokens: options.throttle?.writesPerSecond ?? 0, at: Date.now() };
  /** Transactions by their ClientRequestToken: the request's body, and its answer (settled once it has one). */
  const tokens = new Map<string, { body: string; answer: Promise<Answer>; at: number }>();

  /** Sends one request to DynamoDB Local (its headers as sent, less the hop-by-hop ones) and gives back the answer. */
  function forward({ connection: _connection, 'transfer-encoding': _encoding, 'keep-alive': _keepAlive, ...headers }: IncomingHttpHeaders, body: Buffer): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, method: 'POST', path: '/', agent, headers: { ...headers, host: target.host, 'content-length': body.length } },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          const { connection: _c, 'transfer-encoding': _t, 'keep-alive': _k, ...answerHeaders } = answer.headers;
          answer.on('end', () => resolve({ status: answer.statusCode ?? 500, headers: answerHeaders, body: Buffer.concat(chunks) }));
          answer.on('error', reject);
        },
      );
      upstream.on('error', reject);
      upstream.end(body);
    });
  }

  /** The table's key attributes, hash first, asked once with the credentials of a request that named it. */
  function keySchema(table: string, headers: IncomingHttpHeaders): Promise<string[]> {
    let schema = keySchemas.get(table);
    if (!schema) {
      const describe = Buffer.from(JSON.stringify({ TableName: table }));
      schema = forward({ ...headers, 'x-amz-target': 'DynamoDB_20120810.DescribeTable' }, describe).then(({ status, body }) => {
        if (status !== 200) throw new Error(`DescribeTable ${table}: ${status}`);
        const described = JSON.parse(body.toString()) as { Table: { KeySchema: { AttributeName: string; KeyType: string }[] } };
        return [...described.Table.KeySchema].sort((a, b) => (a.KeyType === 'HASH' ? -1 : b.KeyType === 'HASH' ? 1 : 0)).map((k) => k.AttributeName);
      });
      schema.catch(() => keySchemas.delete(table));
      keySchemas.set(table, schema);
    }
    return schema;
  }

  async function nameOf(table: string, key: AttributeValue, headers: IncomingHttpHeaders): Promise<{ name: ItemName; partition: string }> {
    const attributes = await keySchema(table, headers);
    const values = attributes.map((attribute) => JSON.stringify(key[attribute]));
    const [partitionKey] = attributes;
    return { name: `${table}\u0000${values.join('\u0000')}`, partition: JSON.stringify(partitionKey === undefined ? undefined : key[partitionKey]) };
  }

  /** The items of a request, each with its table and key (a Put names its item by its attributes). */
  function touched(operation: string, input: Json): { table: string; key: AttributeValue }[] {
    const entry = (table: unknown, key: unknown) => ({ table: String(table), key: key as AttributeValue });
    switch (operation) {
      case 'TransactWriteItems':
        return ((input.TransactItems as Json[] | undefined) ?? []).map((action) => {
          const [step] = Object.values(action) as Json[];
          return entry(step?.TableName, step?.Key ?? step?.Item);
        });
      case 'TransactGetItems':
        return ((input.TransactItems as Json[] | undefined) ?? []).map((action) => entry((action.Get as Json).TableName, (action.Get as Json).Key));
      case 'PutItem':
        return [entry(input.TableName, input.Item)];
      case 'UpdateItem':
      case 'DeleteItem':
        return [entry(input.TableName, input.Key)];
      case 'BatchWriteItem':
        return Object.entries((input.RequestItems as Record<string, Json[]> | undefined) ?? {}).flatMap(([table, requests]) =>
          requests.map((r) => entry(table, (r.PutRequest as Json | undefined)?.Item ?? (r.DeleteRequest as Json | undefined)?.Key)),
        );
      default:
        return [];
    }
  }

  /** Whether a write to `partition` may go now: a token of the throttled partition's bucket. */
  function allowWrite(partitions: readonly string[]): boolean {
    const throttle = options.throttle;
    if (!throttle || !partitions.includes(JSON.stringify({ S: throttle.partitionKey }))) return true;
    const now = Date.now();
    bucket.tokens = Math.min(throttle.writesPerSecond, bucket.tokens + ((now - bucket.at) / 1000) * throttle.writesPerSecond);
    bucket.at = now;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  const hold = (locks: Map<ItemName, number>, names: readonly ItemName[]) => {
    for (const name of names) locks.set(name, (locks.get(name) ?? 0) + 1);
  };
  const release = (locks: Map<ItemName, number>, names: readonly ItemName[]) => {
    for (const name of names) {
      const left = (locks.get(name) ?? 1) - 1;
      if (left > 0) locks.set(name, left);
      else locks.delete(name);
    }
  };

  function refuse(response: ServerResponse, type: string, message: string, extra: Json = {}): void {
    const body = JSON.stringify({ __type: `${ERROR_PREFIX}${type}`, message, ...extra });
    response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': `conflict-proxy-${Date.now()}` });
    response.end(body);
  }

  function cancel(response: ServerResponse, reasons: readonly string[]): void {
    counts.cancelled++;
    refuse(response, 'TransactionCanceledException', `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.join(', ')}]`, {
      CancellationReasons: reasons.map((Code) =>
        Code === 'None' ? { Code } : { Code, Message: Code === 'TransactionConflict' ? 'Transaction is ongoing for the item' : 'Throughput exceeds the current capacity for one or more partitions' },
      ),
    });
  }

  const send = (response: ServerResponse, answer: Answer) => {
    response.writeHead(answer.status, answer.headers);
    response.end(answer.body);
  };

  async function handle(operation: string, headers: IncomingHttpHeaders, body: Buffer, response: ServerResponse): Promise<void> {
    const input = JSON.parse(body.toString() || '{}') as Json;
    const token = operation === 'TransactWriteItems' && typeof input.ClientRequestToken === 'string' ? input.ClientRequestToken : undefined;
    const { ClientRequestToken: _, ...request } = input;
    const known = token === undefined ? undefined : tokens.get(token);
    if (known && known.at > Date.now() - TOKEN_MS) {
      if (known.body !== JSON.stringify(request)) return refuse(response, 'IdempotentParameterMismatchException', 'The request uses the same client token as a previous, but non-identical request.');
      const first = await known.answer.catch(() => undefined);
      if (first?.status === 200) return send(response, first);
    }
    let settle: (answer: Answer) => void = () => {};
    let fail: (error: unknown) => void = () => {};
    if (token !== undefined) {
      // Oldest first (a token set again is moved to the end): stop at the first still kept.
      for (const [old, entry] of tokens) {
        if (entry.at > Date.now() - TOKEN_MS) break;
        tokens.delete(old);
      }
      tokens.delete(token);
      const answer = new Promise<Answer>((resolve, reject) => {
        settle = resolve;
        fail = reject;
      });
      tokens.set(token, { body: JSON.stringify(request), at: Date.now(), answer });
    }
    const pass = async () => {
      const answer = await forward(headers, body).catch((error: unknown) => {
        fail(error);
        throw error;
      });
      settle(answer);
      send(response, answer);
    };
    // An answer that is no pass (a conflict, a throttle) settles the token as not done.
    response.on('finish', () => settle({ status: response.statusCode, headers: {}, body: Buffer.alloc(0) }));
    const items = touched(operation, input);
    if (!items.length) return pass();
    const named = await Promise.all(items.map((item) => nameOf(item.table, item.key, headers)));
    const names = named.map((n) => n.name);
    const writes = operation !== 'TransactGetItems';
    if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
      const conflicting = names.map((name) => writing.has(name) || (writes && reading.has(name)));
      if (conflicting.some(Boolean))
        return cancel(
          response,
          conflicting.map((c) => (c ? 'TransactionConflict' : 'None')),
        );
      if (writes && !allowWrite(named.map((n) => n.partition))) {
        counts.throttled++;
        return cancel(
          response,
          named.map((n) => (n.partition === JSON.stringify({ S: options.throttle?.partitionKey }) ? 'ThrottlingError' : 'None')),
        );
      }
      const locks = writes ? writing : reading;
      hold(locks, names);
      try {
        if (writes) await pause(holdMs);
        await pass();
      } finally {
        release(locks, names);
      }
      return;
    }
    if (names.some((name) => writing.has(name))) {
      counts.refused++;
      return refuse(response, 'TransactionConflictException', 'Transaction is ongoing for the item');
    }
    if (!allowWrite(named.map((n) => n.partition))) {
      counts.throttled++;
      return refuse(response, 'ThrottlingException', 'Throughput exceeds the current capacity for one or more partitions');
    }
    return pass();
  }

  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const operation = String(incoming.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      handle(operation, incoming.headers, Buffer.concat(chunks), response).catch((error: Error) => {
        if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
        response.end(`conflict proxy: ${error.message}`);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the conflict proxy has no port');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    counts: () => ({ ...counts }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
