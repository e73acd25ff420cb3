/**
 * Which table a command works on, the same for every CLI (`npm run api-key`, `import`, `migrate`,
 * `events`): $DYNAMODB_ENDPOINT (and $STORE_TABLE_NAME) when set; $STORE_TABLE_NAME alone on AWS;
 * else the DynamoDB Local of a running `npm start`; else a DynamoDB Local started for the command on
 * $DATA_DIR (default .data/), with the table set up as `npm start` would; but not when DATA_DIR was
 * not given and an `npm start` of this checkout serves another data dir: the command then refuses,
 * naming it, since the store it would work on is one no server serves. On every local table the
 * command takes the data dir's secret (STORE_SECRET wins), as `npm start` does, and refuses before it
 * writes when the table was sealed under another one (lib/local/table-secret.ts). The changes a
 * command writes are kept as long as the store keeps them (the retention its placer noted in the
 * table). The caller stops what this returns.
 */
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { useStoreRetention } from '../db/feed.js';
import { endpointFile, startDynamoDbLocal, type DynamoDbLocal } from '../local/dynamodb-local.js';
import { runningStores } from '../local/running-stores.js';
import { setUpTable } from '../local/setup.js';
import { useDataDirSecret } from '../local/server-secret.js';
import { checkTableSecret } from '../local/table-secret.js';
import { UsageError } from './usage.js';

export async function connectToTable(): Promise<DynamoDbLocal | undefined> {
  const onAws = !process.env.DYNAMODB_ENDPOINT && Boolean(process.env.STORE_TABLE_NAME);
  // On AWS the stack's secret and KMS key are the table's; a tool seals with the KMS key (STORE_SECRETS_KEY_ARN).
  if (onAws) {
    await useStoreRetention();
    return undefined;
  }
  const dataDir = path.resolve(process.env.DATA_DIR ?? '.data');
  await useDataDirSecret(dataDir);
  const local = await localEndpoint(dataDir);
  // A DynamoDB Local started here has had its table set up, secret checked first.
  if (!local) await checkTableSecret();
  await useStoreRetention();
  return local;
}

/** The DynamoDB Local to work on: given, a running `npm start`'s, or one started here (returned, for the caller to stop). */
async function localEndpoint(dataDir: string): Promise<DynamoDbLocal | undefined> {
  if (process.env.DYNAMODB_ENDPOINT) return undefined;
  const running = await readFile(endpointFile(dataDir), 'utf8').catch(() => undefined);
  if (running) {
    process.env.DYNAMODB_ENDPOINT = running.trim();
    return undefined;
  }
  const elsewhere = process.env.DATA_DIR === undefined ? (await runningStores()).filter((store) => store.dataDir !== dataDir) : [];
  if (elsewhere.length) {
    const served = elsewhere.map((store) => `DATA_DIR=${JSON.stringify(store.dataDir)} (pid ${store.pid})`).join(', ');
    throw new UsageError(
      `npm start serves ${served}, not ${dataDir}, which this command would work on: run it as DATA_DIR=<that dir> npm run …, or with DATA_DIR=${JSON.stringify(dataDir)} to work on the store no server serves. Nothing was done.`,
    );
  }
  await mkdir(dataDir, { recursive: true });
  // Said, so that a store of another data dir (an npm start run with DATA_DIR) is never mistaken for this one.
  console.error(`No npm start runs on ${dataDir}: working on the store there, with a DynamoDB Local of its own (DATA_DIR=… names another store).`);
  const local = await startDynamoDbLocal({ dataDir });
  process.env.DYNAMODB_ENDPOINT = local.endpoint;
  try {
    await setUpTable();
  } catch (error) {
    await local.stop();
    throw error;
  }
  return local;
}
