/**
 * Creates the table from its definition (table.ts) and loads the reference data, both idempotently:
 * run at every `npm start` and by the test setup. The seeded tax rules are written once, with the
 * marker that says so, so that a deployment's later changes to them are never undone.
 */
import { createHash } from 'node:crypto';
import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, TransactWriteCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { keyAttributeNames, table } from './table.js';
import { keys } from './keys.js';
import { referenceRecords, seedTaxRules } from '../reference/index.js';
import { toItem } from '../tax-rules/model.js';
import type { I18n } from '../i18n.js';

export async function ensureTable(client: DynamoDBClient, name: string): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: name }));
    return;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  await client.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: keyAttributeNames().map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: table.partitionKey, KeyType: 'HASH' },
        { AttributeName: table.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: Object.entries(table.indexes).map(([IndexName, index]) => ({
        IndexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
    }),
  );
  await client.send(new UpdateTimeToLiveCommand({ TableName: name, TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true } }));
}

const referenceVersion = createHash('sha256').update(JSON.stringify(referenceRecords)).digest('hex');

async function loadReferenceRecords(doc: DynamoDBDocumentClient, name: string): Promise<void> {
  const marker = { pk: 'SETUP', sk: 'REFERENCE_DATA' };
  const current = await doc.send(new GetCommand({ TableName: name, Key: marker, ConsistentRead: true }));
  if (current.Item?.version === referenceVersion) return;
  const items = Object.entries(referenceRecords).flatMap(([kind, records]) =>
    (records as ReadonlyArray<{ id: number }>).map((record) => ({ ...keys.referenceData(kind, record.id), ...record })),
  );
  for (let i = 0; i < items.length; i += 25) {
    let request: BatchWriteCommandInput['RequestItems'] = { [name]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) };
    while (request && Object.keys(request).length) {
      const result = await doc.send(new BatchWriteCommand({ RequestItems: request }));
      request = result.UnprocessedItems as BatchWriteCommandInput['RequestItems'];
    }
  }
  await doc.send(new PutCommand({ TableName: name, Item: { ...marker, version: referenceVersion } }));
}

/** The two tax rules of a fresh Thelia install and the default pointer, written once. */
async function seedDefaultTaxRules(doc: DynamoDBDocumentClient, name: string): Promise<void> {
  const now = new Date().toISOString();
  const rules = seedTaxRules.map((seed) => {
    const i18n: I18n<'title' | 'description'> = {};
    for (const [locale, texts] of Object.entries(seed.i18n)) {
      if (texts.title) i18n[locale] = { title: texts.title, ...(texts.description ? { description: texts.description } : {}) };
    }
    const ordered = [...seed.countryTaxes].sort((a, b) => a.position - b.position);
    return toItem({
      id: seed.id,
      countries: [...new Set(ordered.map((ct) => ct.country))],
      taxes: [...new Set(ordered.map((ct) => ct.tax))],
      i18n,
      isDefault: seed.isDefault,
      productCount: 0,
      version: 1,
      createdAt: now,
      updatedAt: now,
    });
  });
  const defaultRule = seedTaxRules.find((r) => r.isDefault);
  try {
    await doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: name, Item: { pk: 'SETUP', sk: 'TAX_RULES' }, ConditionExpression: 'attribute_not_exists(pk)' } },
          ...rules.map((Item) => ({ Put: { TableName: name, Item } })),
          ...(defaultRule ? [{ Put: { TableName: name, Item: { ...keys.defaultTaxRule(), ruleId: defaultRule.id } } }] : []),
        ],
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'TransactionCanceledException') throw error;
    // Already seeded.
  }
}

export async function setUpTable(client: DynamoDBClient, name: string): Promise<void> {
  await ensureTable(client, name);
  const doc = DynamoDBDocumentClient.from(client);
  await loadReferenceRecords(doc, name);
  await seedDefaultTaxRules(doc, name);
}
