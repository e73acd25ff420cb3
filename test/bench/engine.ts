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
 */
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand, type TransactWriteCommandInput, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { performance } from 'node:perf_hooks';
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
  } finally {
    await client.send(new DeleteTableCommand({ TableName }));
    client.destroy();
  }
  console.log('\nDynamoDB Local, one request at a time: its CPU and the wall time an item (ms)');
  console.log(`${''.padEnd(58)} ${'CPU'.padStart(8)} ${'wall'.padStart(8)}`);
  for (const row of rows.slice(1)) console.log(row);
}
