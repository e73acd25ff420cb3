/** Runs before each test file: a fresh table, set up as `npm start` would, in the shared DynamoDB Local. */
import { randomUUID } from 'node:crypto';
import { beforeAll, inject } from 'vitest';
import { createDynamoDbClient } from '../../lib/db/client.js';
import { setUpTable } from '../../lib/db/setup.js';

process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
process.env.STORE_TABLE_NAME = `test-${randomUUID()}`;

beforeAll(async () => {
  const client = createDynamoDbClient();
  await setUpTable(client, process.env.STORE_TABLE_NAME!);
  client.destroy();
});
