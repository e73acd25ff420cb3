/**
 * Which table a command works on, the same for every CLI (`npm run api-key`, `npm run import`):
 * $DYNAMODB_ENDPOINT (and $STORE_TABLE_NAME) when set, or $STORE_TABLE_NAME alone on AWS; else the
 * DynamoDB Local of a running `npm start`; else a DynamoDB Local started for the command on
 * $DATA_DIR (default .data/), with the table set up as `npm start` would. The changes a command
 * writes are kept as long as the store keeps them (the retention its placer noted in the table).
 * The caller stops what this returns.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { useStoreRetention } from '../db/feed.js';
import { endpointFile, startDynamoDbLocal, type DynamoDbLocal } from '../local/dynamodb-local.js';
import { setUpTable } from '../local/setup.js';
import { useDataDirSecret } from '../local/server-secret.js';

export async function connectToTable(): Promise<DynamoDbLocal | undefined> {
  const local = await tableEndpoint();
  await useStoreRetention();
  return local;
}

async function tableEndpoint(): Promise<DynamoDbLocal | undefined> {
  if (process.env.DYNAMODB_ENDPOINT || process.env.STORE_TABLE_NAME) return undefined;
  const dataDir = path.resolve(process.env.DATA_DIR ?? '.data');
  // The secure keys a tool seals must open in `npm start`: both take the data dir's secret.
  await useDataDirSecret(dataDir);
  const running = await readFile(endpointFile(dataDir), 'utf8').catch(() => undefined);
  if (running) {
    process.env.DYNAMODB_ENDPOINT = running.trim();
    return undefined;
  }
  await mkdir(dataDir, { recursive: true });
  const local = await startDynamoDbLocal({ dataDir });
  process.env.DYNAMODB_ENDPOINT = local.endpoint;
  await setUpTable();
  return local;
}
