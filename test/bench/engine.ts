/**
 * BENCH_ONLY=engine: what DynamoDB Local charges for the writes and reads the store sends, which
 * bounds what the stock and sync benches can show on it (docs/benchmark.md). Fresh items of about a
 * sale element's size (450 bytes) written in transactions one after another, by the transaction's
 * size (1, 3 and 66 items: a single PUT writes 3, a batch's pack about 66), and 66 with what the
 * store's steps carry (a condition and the old item on its failure; an index's keys; an item there
 * already, replaced at its version; updated in place at its version, setting 16 attributes or 5, as a
 * replace did and does); an UpdateItem that adds and logs (a
 * stock take, then recorded in a transaction of 3) and one that trims the log; a GetItem; then
 * BatchGetItem of 100 keys. For each: DynamoDB Local's CPU time an item (its Java process's, read
 * from /proc: Linux only) and the wall time an item.
 *
 * Then a stock-sync row at its least (`syncRowFloor`): what any batch row that keeps its record's
 * history costs, with nothing of the store's beside it, on this table (1 index) and on a table made
 * as the store's (8): the floor under `BENCH_ONLY=sync`'s batch rows, against the same row sent alone.
 */
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand, type TransactWriteCommandInput, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { performance } from 'node:perf_hooks';
import { ensureTable } from '../../lib/local/setup.js';
import { inTurns } from '../../lib/in-turns.js';
import { cpuSince, javaListeningOn } from './process-cpu.js';

const PAD = 'x'.repeat(400);

export async function engineBenchmark(dynamoEndpoint: string): Promise<void> {
  const java = javaListeningOn(new URL(dynamoEndpoint).port);
  const client = new DynamoDBClient({ endpoint: dynamoEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } });
  const doc = DynamoDBDocumentClient.from(client);
  const TableName = `engine-${process.pid}`;
  await client.send(
    new CreateTableCommand({
      TableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: ['pk', 'sk', 'gsi1pk', 'gsi1sk'].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'GSI1',
          KeySchema: [
            { AttributeName: 'gsi1pk', KeyType: 'HASH' },
            { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
  let n = 0;
  const plain = () => ({ pk: `E#${++n}`, sk: 'E', pad: PAD });
  const rows: string[] = [];
  const floors: string[] = [];
  /** `operations` calls of `send`, each of `items` items: DynamoDB Local's CPU and the wall time an item. */
  const measure = async (name: string, operations: number, items: number, send: () => Promise<unknown>) => {
    const spent = cpuSince([java]);
    const started = performance.now();
    for (let k = 0; k < operations; k++) await send();
    const wall = (performance.now() - started) / (operations * items);
    const cpu = java === undefined ? 'n/a' : (spent()[0]! / (operations * items)).toFixed(2);
    rows.push(`${name.padEnd(58)} ${String(cpu).padStart(8)} ${wall.toFixed(2).padStart(8)}`);
  };
  /** `items` writes in one transaction, each as `write` makes it. */
  const transactionOf = (items: number, write: () => NonNullable<TransactWriteCommandInput['TransactItems']>[number]) => () =>
    doc.send(new TransactWriteCommand({ TransactItems: Array.from({ length: items }, write) }));
  const transaction = (items: number, item: () => Record<string, unknown>, extra: Record<string, unknown> = {}) => transactionOf(items, () => ({ Put: { TableName, Item: item(), ...extra } }));
  try {
    // Warmed first: the JVM compiles what it runs most.
    await measure('(warming)', 40, 66, transaction(66, plain));
    await measure('transaction of 1 item', 600, 1, transaction(1, plain));
    await measure('transaction of 3 items', 300, 3, transaction(3, plain));
    await measure('transaction of 66 items', 40, 66, transaction(66, plain));
    await measure(
      '  each on condition, the old item asked for on its failure',
      40,
      66,
      transaction(66, plain, { ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
    );
    await measure(
      '  each with an index’s keys',
      40,
      66,
      transaction(66, () => ({ ...plain(), gsi1pk: `P#${n % 50}`, gsi1sk: String(n) })),
    );
    // What a stock change writes: an item there already, put again at the version read, its index keys kept.
    let replaced = n - 40 * 66;
    await measure(
      '  each replacing an item at its version, index keys kept',
      40,
      66,
      transaction(
        66,
        () => {
          const k = ++replaced;
          return { pk: `E#${k}`, sk: 'E', pad: PAD, gsi1pk: `P#${k % 50}`, gsi1sk: String(k), version: 2 };
        },
        { ConditionExpression: 'attribute_not_exists(version)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' },
      ),
    );
    // What a replace sends (lib/db/entity.ts): an update in place at the version read, setting every
    // attribute of a sale element (16, as before 2026-11-30) or those a stock sync changes and the
    // index keys (5); each pass over the same 2 640 items, alternately, a version further.
    let pass = 0;
    const updatedInPlace = (attributes: number) => {
      const version = 2 + pass++;
      let k = n - 40 * 66;
      return transactionOf(66, () => {
        const set = { version: version + 1, quantity: version, updatedAt: new Date().toISOString(), gsi1pk: `P#${++k % 50}`, gsi1sk: String(k) };
        const fields: Record<string, unknown> = { ...set, ...Object.fromEntries(Array.from({ length: attributes - 5 }, (_, a) => [`field${a}`, `value ${a} of ${k}`])) };
        const names = Object.keys(fields);
        return {
          Update: {
            TableName,
            Key: { pk: `E#${k}`, sk: 'E' },
            UpdateExpression: `SET ${names.map((_, a) => `#a${a} = :a${a}`).join(', ')}`,
            ConditionExpression: 'attribute_exists(pk) AND #version = :read',
            ExpressionAttributeNames: { ...Object.fromEntries(names.map((name, a) => [`#a${a}`, name])), '#version': 'version' },
            ExpressionAttributeValues: { ...Object.fromEntries(names.map((name, a) => [`:a${a}`, fields[name]])), ':read': version },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        };
      });
    };
    for (const round of [1, 2]) {
      await measure(`  each updated in place at its version, 16 attributes (${round})`, 40, 66, updatedInPlace(16));
      await measure(`  each updated in place at its version, 5 attributes (${round})`, 40, 66, updatedInPlace(5));
    }
    // What a take writes (lib/db/logged-add.ts): one item, added to and logged, answered whole; then its log trimmed.
    // Each of the 600 replaced items above once, `update(k)` for item k.
    const eachReplaced = (update: (k: number) => Omit<UpdateCommandInput, 'TableName' | 'Key'>) => {
      let k = n - 40 * 66;
      return () => {
        k++;
        return doc.send(new UpdateCommand({ TableName, Key: { pk: `E#${k}`, sk: 'E' }, ...update(k) }));
      };
    };
    await measure(
      'an UpdateItem that adds and logs (a take), answering the item',
      600,
      1,
      eachReplaced((k) => ({
        UpdateExpression: 'SET #log = list_append(if_not_exists(#log, :none), :entry) ADD quantity :amount, version :one',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(quantity) OR quantity >= :floor)',
        ExpressionAttributeNames: { '#log': 'takes' },
        ExpressionAttributeValues: { ':none': [], ':entry': [{ id: `take-${k}`, delta: '-1.000000', at: Date.now() }], ':amount': -1, ':one': 1, ':floor': 1 },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      })),
    );
    await measure(
      'an UpdateItem that trims that log',
      600,
      1,
      eachReplaced((k) => ({
        UpdateExpression: 'REMOVE #log[0] SET updatedAt = :at',
        ConditionExpression: '#log[0].#id = :first',
        ExpressionAttributeNames: { '#log': 'takes', '#id': 'id' },
        ExpressionAttributeValues: { ':first': `take-${k}`, ':at': new Date().toISOString() },
      })),
    );
    let got = 0;
    await measure('a GetItem, read consistently', 600, 1, () => doc.send(new GetCommand({ TableName, Key: { pk: `E#${1 + (got++ % n)}`, sk: 'E' }, ConsistentRead: true })));
    const written = n;
    await measure('BatchGetItem of 100 keys, read consistently', 40, 100, () =>
      doc.send(new BatchGetCommand({ RequestItems: { [TableName]: { Keys: Array.from({ length: 100 }, (_, k) => ({ pk: `E#${1 + ((k * 37) % written)}`, sk: 'E' })), ConsistentRead: true } } })),
    );
    // The same rows on this table and on one made as the store's: what the table's indexes cost each item.
    floors.push(...floorLines('a table of 1 index', await syncRowFloor(doc, java, TableName)), ...floorLines("a table made as the store's (8 indexes)", await storeTableFloor(dynamoEndpoint)));
  } finally {
    await client.send(new DeleteTableCommand({ TableName }));
    client.destroy();
  }
  console.log('\nDynamoDB Local, one request at a time: its CPU and the wall time an item (ms)');
  console.log(`${''.padEnd(58)} ${'CPU'.padStart(8)} ${'wall'.padStart(8)}`);
  for (const row of rows.slice(1)) console.log(row);
  console.log(`\na stock-sync row at its least, ${FLOOR_ROWS} rows, ${FLOOR_IN_FLIGHT} requests in flight: DynamoDB Local's CPU a row (ms) and rows a second`);
  for (const row of floors) console.log(row);
}

const FLOOR_ROWS = 3_000;
const FLOOR_IN_FLIGHT = 4;
/** A batch's rows a transaction: 2 items each, and room left for what a real pack adds (markers). */
const FLOOR_PACK = 45;

/** What rows cost DynamoDB Local: its CPU a row (undefined where /proc does not say), and rows a second. */
export interface RowCost {
  cpuMs: number | undefined;
  perSecond: number;
}

const floorLines = (table: string, floor: { batched: RowCost; alone: RowCost }) =>
  (['batched', 'alone'] as const).map((kind) => {
    const { cpuMs, perSecond } = floor[kind];
    return `${`  on ${table}: ${kind === 'batched' ? 'in batches' : 'alone'}`.padEnd(58)} ${(cpuMs?.toFixed(2) ?? 'n/a').padStart(8)} ${`${perSecond.toFixed(0)}/s`.padStart(8)}`;
  });

/**
 * What a row of a stock sync costs DynamoDB Local at its least, whatever the code around it: its two
 * keys read (the lock of its reference, its record; consistently, 100 a BatchGet) and its two writes
 * (the record at the version read, its change on condition that it is new), FLOOR_PACK rows a
 * transaction; and the same row sent alone (a GetItem, then a transaction of its two items), as a
 * single PUT does at its least. No marker, no placing, no search index, no product read: what
 * `BENCH_ONLY=sync`'s rows cost beyond this is the store's own. `FLOOR_ROWS` records, each written a
 * pass further; the first pass of each kind warms the JVM.
 */
async function syncRowFloor(doc: DynamoDBDocumentClient, java: number | undefined, TableName: string): Promise<{ batched: RowCost; alone: RowCost }> {
  const versions = Array.from({ length: FLOOR_ROWS }, () => 1);
  const record = (k: number) => ({ pk: `FLOOR#R#${k}`, sk: 'R' });
  const lock = (k: number) => ({ pk: `FLOOR#L#SKU-${k}`, sk: 'L' });
  for (let start = 0; start < FLOOR_ROWS; start += 12) {
    const ks = Array.from({ length: Math.min(12, FLOOR_ROWS - start) }, (_, j) => start + j);
    await doc.send(
      new TransactWriteCommand({
        TransactItems: ks.flatMap((k) => [
          { Put: { TableName, Item: { ...record(k), gsi1pk: `P#${Math.floor(k / 10)}`, gsi1sk: String(k).padStart(10, '0'), quantity: 0, version: 1, pad: PAD } } },
          { Put: { TableName, Item: { ...lock(k), owner: k } } },
        ]),
      }),
    );
  }
  const writes = (k: number, quantity: number): NonNullable<TransactWriteCommandInput['TransactItems']> => {
    const read = versions[k]!;
    versions[k] = read + 1;
    const at = new Date().toISOString();
    return [
      {
        Update: {
          TableName,
          Key: record(k),
          UpdateExpression: 'SET quantity = :quantity, version = :next, updatedAt = :at',
          ConditionExpression: 'version = :read',
          ExpressionAttributeValues: { ':quantity': quantity, ':next': read + 1, ':read': read, ':at': at },
        },
      },
      { Put: { TableName, Item: { pk: `FLOOR#C#${k}`, sk: `V#${read + 1}`, at, fields: JSON.stringify({ QUANTITY: [read, quantity] }) }, ConditionExpression: 'attribute_not_exists(pk)' } },
    ];
  };
  const batched = (quantity: number) =>
    inTurns(
      Array.from({ length: FLOOR_ROWS / 100 }, (_, b) => Array.from({ length: 100 }, (_, j) => b * 100 + j)),
      FLOOR_IN_FLIGHT,
      async (ks) => {
        for (const key of [lock, record]) await doc.send(new BatchGetCommand({ RequestItems: { [TableName]: { Keys: ks.map(key), ConsistentRead: true } } }));
        for (let start = 0; start < ks.length; start += FLOOR_PACK)
          await doc.send(new TransactWriteCommand({ TransactItems: ks.slice(start, start + FLOOR_PACK).flatMap((k) => writes(k, quantity)) }));
      },
    );
  const alone = (quantity: number) =>
    inTurns(
      Array.from({ length: FLOOR_ROWS / 3 }, (_, k) => k),
      FLOOR_IN_FLIGHT,
      async (k) => {
        await doc.send(new GetCommand({ TableName, Key: record(k), ConsistentRead: true }));
        await doc.send(new TransactWriteCommand({ TransactItems: writes(k, quantity) }));
      },
    );
  const measure = async (count: number, send: () => Promise<unknown>): Promise<RowCost> => {
    const spent = cpuSince([java]);
    const started = performance.now();
    await send();
    return { cpuMs: java === undefined ? undefined : spent()[0]! / count, perSecond: count / ((performance.now() - started) / 1000) };
  };
  await batched(1);
  await alone(2);
  return { batched: await measure(FLOOR_ROWS, () => batched(3)), alone: await measure(FLOOR_ROWS / 3, () => alone(4)) };
}

/** `syncRowFloor` on a fresh table made as the store's (its 8 indexes), in the DynamoDB Local at `endpoint`, dropped after. */
export async function storeTableFloor(endpoint: string): Promise<{ batched: RowCost; alone: RowCost }> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } });
  const TableName = `floor-${process.pid}-${Date.now()}`;
  await ensureTable(client, TableName);
  try {
    return await syncRowFloor(DynamoDBDocumentClient.from(client), javaListeningOn(new URL(endpoint).port), TableName);
  } finally {
    await client.send(new DeleteTableCommand({ TableName }));
    client.destroy();
  }
}
