/**
 * Tooling, never bundled into a Lambda: creates the table from its definition (lib/db/table.ts) and
 * loads the reference data, both idempotently, once the table's secret is this process's (table-secret.ts). Run at every `npm start`, by `npm run api-key` when
 * it starts its own DynamoDB Local, and by the test setup. The seeded tax rules are written once,
 * with a marker that says so, so that a deployment's later changes to them are never undone.
 */
import { createHash } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand, ResourceNotFoundException, UpdateTableCommand, UpdateTimeToLiveCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { createDynamoDbClient, tableName } from '../db/client.js';
import { Conflict } from '../db/errors.js';
import { padId } from '../db/keys.js';
import { keyAttributeNames, table, type KeyPair } from '../db/table.js';
import { ABSENT, put } from '../db/transactions.js';
import { commitOnce, stepsWrite } from '../db/write-plan.js';
import { referenceRecords } from '../reference/records.js';
import { seededTaxRules } from '../tax-rules/seed.js';
import { recordAllRun, runMigrations } from '../migrations/run.js';
import { checkTableSecret } from './table-secret.js';
import { createSteps } from '../db/sharded-count.js';
import { defaultTaxRule, productsUsing, taxRules } from '../tax-rules/entity.js';

/** Marker items of what the setup has done, and the reference records it loads. */
const setupMarker = (what: string) => ({ pk: 'SETUP', sk: what });
const referenceKey = (kind: string, id: number) => ({ pk: `REFDATA#${kind}`, sk: padId(id) });

const indexSpec = ([IndexName, index]: [string, KeyPair]) => ({
  IndexName,
  KeySchema: [
    { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
    { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
  ],
  Projection: { ProjectionType: 'ALL' as const },
});

/**
 * The table, made when missing (then `created`); an existing one gets the indexes a later release
 * declares (one at a time, as DynamoDB adds them), which it fills from the items already there.
 */
export async function ensureTable(client: DynamoDBClient, name: string): Promise<{ created: boolean }> {
  let existing: string[];
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    existing = (Table?.GlobalSecondaryIndexes ?? []).flatMap((index) => (index.IndexName ? [index.IndexName] : []));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
    await createTable(client, name);
    return { created: true };
  }
  for (const entry of Object.entries(table.indexes).filter(([indexName]) => !existing.includes(indexName))) {
    await client.send(
      new UpdateTableCommand({
        TableName: name,
        AttributeDefinitions: [entry[1].partitionKey, entry[1].sortKey].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
        GlobalSecondaryIndexUpdates: [{ Create: indexSpec(entry) }],
      }),
    );
  }
  return { created: false };
}

async function createTable(client: DynamoDBClient, name: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: keyAttributeNames().map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: table.partitionKey, KeyType: 'HASH' },
        { AttributeName: table.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: Object.entries(table.indexes).map(indexSpec),
      // No stream: nothing reads one locally (EventBridge exists only on AWS), and DynamoDB Local's
      // streams make every write about three times slower (the test suite: 210 s → 583 s).
    }),
  );
  await client.send(new UpdateTimeToLiveCommand({ TableName: name, TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true } }));
}

/** Gives a local table the stream the deployed one has (lib/db/table.ts): for what reads it, the publisher's tests. */
export async function enableStream(client: DynamoDBClient, name: string): Promise<void> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
  if (Table?.StreamSpecification?.StreamEnabled) return;
  await client.send(new UpdateTableCommand({ TableName: name, StreamSpecification: { StreamEnabled: true, StreamViewType: table.stream } }));
}

const referenceVersion = createHash('sha256').update(JSON.stringify(referenceRecords)).digest('hex');

async function loadReferenceRecords(doc: DynamoDBDocumentClient, name: string): Promise<void> {
  const marker = setupMarker('REFERENCE_DATA');
  const current = await doc.send(new GetCommand({ TableName: name, Key: marker, ConsistentRead: true }));
  if (current.Item?.version === referenceVersion) return;
  const items = Object.entries(referenceRecords).flatMap(([kind, records]) => (records as ReadonlyArray<{ id: number }>).map((record) => ({ ...referenceKey(kind, record.id), ...record })));
  for (let i = 0; i < items.length; i += 25) {
    let request: BatchWriteCommandInput['RequestItems'] = { [name]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) };
    while (request && Object.keys(request).length) {
      const result = await doc.send(new BatchWriteCommand({ RequestItems: request }));
      request = result.UnprocessedItems as BatchWriteCommandInput['RequestItems'];
    }
  }
  await doc.send(new PutCommand({ TableName: name, Item: { ...marker, version: referenceVersion } }));
}

/** The seeded tax rules and the default pointer, written once. */
async function seedDefaultTaxRules(): Promise<void> {
  try {
    await commitOnce(
      stepsWrite((stamp) => {
        const rules = seededTaxRules(stamp.now);
        const defaultRule = rules.find((rule) => rule.isDefault);
        return [
          put(setupMarker('TAX_RULES'), ABSENT, () => new Conflict('already seeded')),
          ...taxRules.create(stamp, ...rules),
          ...rules.flatMap((rule) => createSteps(productsUsing(rule.id))),
          ...(defaultRule ? [defaultTaxRule.move(undefined, defaultRule.id)] : []),
        ];
      }),
    );
  } catch (error) {
    if (!(error instanceof Conflict)) throw error;
  }
}

/** The table's pending migrations (lib/migrations/), as a deploy runs them; what could not be migrated is said. */
async function migrateTable(): Promise<void> {
  const { conflicts } = await runMigrations();
  for (const conflict of conflicts) console.warn(`store-api: two records now read as one value; rename one (${conflict})`);
}

/** The table of the environment (STORE_TABLE_NAME, DYNAMODB_ENDPOINT) and its reference data, as `npm start` serves them. */
export async function setUpTable(): Promise<void> {
  // Creating the table and loading the reference data are the first requests a just started
  // DynamoDB Local (a cold JVM) answers, on a machine perhaps busy: they may take longer than a
  // request of the API should.
  const client = createDynamoDbClient(undefined, 30_000);
  try {
    const { created } = await ensureTable(client, tableName());
    // Before anything is written: a process with another secret than the table's stops here.
    await checkTableSecret();
    await loadReferenceRecords(DynamoDBDocumentClient.from(client), tableName());
    await seedDefaultTaxRules();
    // A table made just now holds only what this release wrote: nothing to migrate. (Cut off before
    // this, the table is found next time, and its migrations run.)
    if (created) await recordAllRun();
    else await migrateTable();
  } finally {
    client.destroy();
  }
}
