/**
 * `npm start`: the API on http://127.0.0.1:$PORT (default 3000) backed by DynamoDB Local with its
 * data in $DATA_DIR (default .data/), or by $DYNAMODB_ENDPOINT when set. Creates the table and the
 * reference data when missing, makes sure an API key exists, and stops everything on SIGINT/SIGTERM.
 * With STORE_LOCAL_CONFLICTS=1 it talks to DynamoDB through the conflict-faithful proxy
 * (conflict-proxy.ts: transactions refused as DynamoDB refuses them, each held
 * STORE_LOCAL_CONFLICT_HOLD_MS, default 5). It waits for DynamoDB (its own or the one given) and for
 * the table's setup as long as a loaded machine needs, up to STORE_START_TIMEOUT_SECONDS (default
 * 180), with a line after 2 s and every 10 s. It keeps the lists' search index (SQLite, in the data
 * dir) from the change feed, and in a terminal writes a line per request for people (lib/local/console.ts).
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tableName } from '../db/client.js';
import { setUpTable } from './setup.js';
import { useDataDirSecret } from './server-secret.js';
import { createApiKey, ensureApiKey, hasAnyApiKey } from '../api-keys/index.js';
import { noteRunningStore } from './running-stores.js';
import { endpointFile, freePort, JavaMissingError, superviseDynamoDbLocal, waitPatiently, waitUntilAnswering, type DynamoDbLocal } from './dynamodb-local.js';
import { Unavailable } from '../db/errors.js';
import { createLocalServer, listen } from './server.js';
import { startConflictProxy, type ConflictProxy } from './conflict-proxy.js';
import { webhookWorker } from '../webhooks/worker.js';
import { placeChanges } from '../changes/placer.js';
import { onCommitted } from '../db/commits.js';
import { recordsAChange } from '../db/changes.js';
import { pacedJob } from './paced-job.js';
import { hashPasswordsInWorkers } from './password-workers.js';
import { useSearchEngine } from '../db/lists/engine.js';
import { followIntoSearchIndex } from '../search/index.js';
import { SqliteSearchEngine } from './search-sqlite.js';
import { useLogWriter } from '../log.js';
import { peopleConsole } from './console.js';

/**
 * The background work AWS runs on its own: the change feed's placer, and the webhooks' worker
 * (lib/webhooks/worker.ts), twice a second; the worker's lanes run between its ticks. As the table's
 * stream wakes the placer on AWS, a transaction of this process that records a change wakes it here,
 * at most twice a second (a burst of writes is placed in rounds, as it is now); with nothing to wake
 * it, it looks every 2 s (what other processes write: the tools, a second store process), rather than
 * asking DynamoDB Local eight queries twice a second forever. As the stream's placed feed items wake
 * the worker on AWS, a placer's run that placed something ticks the worker at once.
 */
function runBackgroundWork(placer: string): void {
  const placing = pacedJob('changes', { gapMs: 500, idleMs: 2_000 }, async () => {
    if ((await placeChanges(Date.now() + 5_000, placer)).placed > 0) await Promise.all([webhookWorker.tick(), followSearch()]);
  });
  onCommitted((steps) => {
    if (recordsAChange(steps)) placing.wake();
  });
  // Nothing wakes these: each runs this long after its last run ended.
  pacedJob('webhooks', { gapMs: 500, idleMs: 500 }, () => webhookWorker.tick());
  pacedJob('search index', { gapMs: 250, idleMs: 250 }, followSearch);
}

/** One run of the search index's projection at a time (the placer's and the timer's share it); a rebuild is said. */
let searching: Promise<unknown> | undefined;
function followSearch(): Promise<unknown> {
  searching ??= followIntoSearchIndex()
    .then((run) => {
      if (run?.rebuilt) console.log(`search index: built from the table (${run.written} records)`);
    })
    .finally(() => {
      searching = undefined;
    });
  return searching;
}

/** What a tool's command needs before it to reach this store: the data dir, unless it is the default one. */
const toolPrefix = (dataDir: string): string => (dataDir === path.resolve('.data') ? '' : `DATA_DIR=${JSON.stringify(dataDir)} `);

async function main(): Promise<void> {
  // A local receiver may be on http://127.0.0.1 or ::1 (lib/webhooks/address-policy.ts); a deployment never allows it.
  process.env.STORE_WEBHOOKS_ALLOW_LOOPBACK ??= '1';
  // One process serves every route here: checking keys each second costs next to nothing, and an
  // `npm run api-key -- revoke` or `quota` then takes effect at once, not after a Lambda's 30 s.
  process.env.STORE_API_KEY_CACHE_SECONDS ??= '1';
  // One process serves every route: a password's hash, some 50 ms of CPU, goes to a worker thread.
  hashPasswordsInWorkers();
  // In a terminal, a line per request that a person reads; JSON lines otherwise (lib/local/console.ts).
  useLogWriter(peopleConsole());
  const dataDir = path.resolve(process.env.DATA_DIR ?? '.data');
  const port = Number(process.env.PORT ?? 3000);
  await mkdir(dataDir, { recursive: true });
  await useDataDirSecret(dataDir);
  let dynamo: DynamoDbLocal | undefined;
  let conflicts: ConflictProxy | undefined;
  let forgetRunningStore: (() => Promise<void>) | undefined;
  const server = createLocalServer();
  let stopping = false;
  const stop = async (signal: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping`);
    server.close();
    server.closeAllConnections();
    if (conflicts) {
      const { cancelled, refused, throttled } = conflicts.counts();
      console.log(`DynamoDB's conflicts met: ${cancelled} transactions cancelled, ${refused} single writes refused, ${throttled} throttled`);
      await conflicts.close();
    }
    if (dynamo) {
      await rm(endpointFile(dataDir), { force: true });
      await forgetRunningStore?.();
      await dynamo.stop();
    }
    process.exit(exitCode);
  };
  if (!process.env.DYNAMODB_ENDPOINT) {
    // Never the API's port: it is listened on only once DynamoDB answers, and is free until then.
    const dynamoPort = process.env.DYNAMODB_PORT ? Number(process.env.DYNAMODB_PORT) : await freePort([port]);
    dynamo = await superviseDynamoDbLocal(
      { dataDir, port: dynamoPort },
      {
        say: (message) => console.error(message),
        giveUp: (reason) => {
          console.error(reason.message);
          void stop('DynamoDB Local is gone', 1);
        },
      },
    );
    if (!dynamo.loopbackOnly) {
      console.error(
        `DynamoDB Local listens on every interface of this machine (this Java has no jdk.compiler module to start it on 127.0.0.1 only): anyone who reaches port ${dynamo.port} can read and write the store. docs/local-store-and-configuration.md: The local store.`,
      );
    }
    process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
    // `npm run api-key` finds the running DynamoDB Local through this file; one run without DATA_DIR, through the note.
    await writeFile(endpointFile(dataDir), dynamo.endpoint);
    forgetRunningStore = await noteRunningStore(dataDir);
  } else {
    // A DynamoDB started beside this one (a compose file, a CI service) may still be starting.
    await waitUntilAnswering(process.env.DYNAMODB_ENDPOINT, { what: `DynamoDB at ${process.env.DYNAMODB_ENDPOINT}`, say: (line) => console.error(line) });
  }
  if (process.env.STORE_LOCAL_CONFLICTS === '1') {
    const holdMs = Number(process.env.STORE_LOCAL_CONFLICT_HOLD_MS ?? 5);
    conflicts = await startConflictProxy({ target: process.env.DYNAMODB_ENDPOINT, holdMs });
    console.log(`DynamoDB's transaction conflicts on: ${conflicts.endpoint} in front of ${process.env.DYNAMODB_ENDPOINT} (each transaction held ${holdMs} ms)`);
    process.env.DYNAMODB_ENDPOINT = conflicts.endpoint;
  }
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  try {
    // The setup's first writes meet a cold DynamoDB: each is tried again (the setup is idempotent) while it is unavailable.
    await waitPatiently(setUpTable, { what: 'the table to be set up', say: (line) => console.error(line), retryable: (error) => error instanceof Unavailable });

    const bootstrap = process.env.STORE_BOOTSTRAP_API_KEY;
    let created: { apiKey: string; secureKey: string } | undefined;
    if (bootstrap) {
      const [apiKey = '', secureKey = ''] = bootstrap.split(':');
      await ensureApiKey(apiKey, secureKey);
      created = { apiKey, secureKey };
    } else if (!(await hasAnyApiKey())) {
      created = await createApiKey({ label: 'first key (created by npm start)', superadmin: true });
      console.log(`No API key existed: created a superadmin key. Its secure key is shown only now:\n${JSON.stringify(created)}`);
    }

    const actualPort = await listen(server, port);
    const base = `http://127.0.0.1:${actualPort}`;
    // A `sign` value is a reusable credential (it covers only the body): print how to compute it, never one.
    // The key made now is shown this once anyway: its three lines are ready to paste into the README's
    // curl session; a bootstrap key's secure key is the operator's, never printed.
    const secureLine = created && !bootstrap ? `SECURE=${created.secureKey}` : `SECURE=<the secure key of ${created?.apiKey}>`;
    const tryIt = created
      ? [
          "Try it: paste these three lines, then the README's curl session (sign = HMAC-SHA1 of the body, keyed with the hex-decoded secure key):",
          `  BASE=${base}`,
          `  KEY=${created.apiKey}`,
          `  ${secureLine}`,
          `  curl -H "Authorization: Token $KEY" "$BASE/api/tax-rules?sign=$(printf '' | openssl dgst -sha1 -mac HMAC -macopt "hexkey:$SECURE" | sed 's/^.*= //')"`,
        ].join('\n')
      : `Create a key with: ${toolPrefix(dataDir)}npm run api-key -- create --label me --superadmin   (docs/api-keys.md)`;
    // One write, so that whoever waits for "listening on" gets the key and the example with it.
    console.log(`store-api listening on ${base} (DynamoDB: ${process.env.DYNAMODB_ENDPOINT}, table ${tableName()})\n${tryIt}`);
    // The same placer from one start to the next: restarted after a crash, it takes over its own lease at once.
    // The search index (docs/lists.md): a file beside the data, one per table, built from it when missing.
    useSearchEngine(new SqliteSearchEngine(path.join(dataDir, `search-${tableName()}.sqlite`)));
    runBackgroundWork(`npm start on ${dataDir}`);
  } catch (error) {
    console.error(`start failed: ${(error as Error).message}`);
    await stop('error', 1);
  }
}

main().catch((error: Error) => {
  console.error(error instanceof JavaMissingError ? error.message : `start failed: ${error.message}`);
  process.exit(1);
});
