/**
 * A real MariaDB (Debian's mariadb-server) for the Thelia import's tests and benchmark: a fresh data
 * directory in a temp dir, a free port on 127.0.0.1, stopped and removed after. The import connects
 * as a user that may only SELECT, as a careful shop would let it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import mysql from 'mysql2/promise';
import { freePort } from '../../lib/local/dynamodb-local.js';

const SERVER_BINARIES = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld', '/usr/bin/mariadbd'];

export interface MariaDb {
  port: number;
  /** Runs statements as the server's administrator. */
  admin: mysql.Connection;
  /** A new database, made of `statements`, that `reader` may only SELECT from: its mysql:// URL. */
  createDatabase(name: string, statements: readonly string[]): Promise<string>;
  stop(): Promise<void>;
}

export const READER = { user: 'thelia_reader', password: 'p@ss:w/rd#Thelia' };

/** Its data and its temporary tables both in `dir`: servers started at once never share /tmp's (one removed another's temporary table once). */
function installDataDir(dataDir: string, tmpDir: string, user: string): void {
  const result = spawnSync('mariadb-install-db', ['--no-defaults', `--datadir=${dataDir}`, `--tmpdir=${tmpDir}`, `--user=${user}`, '--auth-root-authentication-method=normal', '--skip-test-db'], {
    encoding: 'utf8',
  });
  if (result.error) throw new Error(`MariaDB is not installed (mariadb-install-db: ${result.error.message}); apt-get install mariadb-server`);
  if (result.status !== 0) throw new Error(`mariadb-install-db failed: ${result.stderr}`);
}

async function waitUntilReady(socketPath: string, server: ChildProcess, log: () => string): Promise<mysql.Connection> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`MariaDB exited with code ${server.exitCode}: ${log()}`);
    try {
      return await mysql.createConnection({ socketPath, user: 'root', multipleStatements: true, charset: 'utf8mb4' });
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`MariaDB did not start: ${(error as Error).message}: ${log()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export async function startMariaDb(): Promise<MariaDb> {
  const binary = SERVER_BINARIES.find((file) => existsSync(file));
  if (!binary) throw new Error('MariaDB is not installed (no mariadbd); apt-get install mariadb-server');
  const dir = await mkdtemp(path.join(tmpdir(), 'store-api-mariadb-'));
  const dataDir = path.join(dir, 'data');
  const socketPath = path.join(dir, 'mariadb.sock');
  const user = userInfo().username;
  installDataDir(dataDir, dir, user);
  const port = await freePort();
  const server = spawn(
    binary,
    [
      '--no-defaults',
      `--datadir=${dataDir}`,
      `--tmpdir=${dir}`,
      `--socket=${socketPath}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--user=${user}`,
      `--pid-file=${path.join(dir, 'mariadb.pid')}`,
      '--skip-log-bin',
      '--innodb-buffer-pool-size=64M',
      '--innodb-flush-log-at-trx-commit=0',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  server.stderr?.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  const admin = await waitUntilReady(socketPath, server, () => log);
  await admin.query(`CREATE USER '${READER.user}'@'%' IDENTIFIED BY ?`, [READER.password]);

  return {
    port,
    admin,
    async createDatabase(name, statements) {
      await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
      await admin.changeUser({ database: name });
      for (const statement of statements) await admin.query(statement);
      await admin.query(`GRANT SELECT ON \`${name}\`.* TO '${READER.user}'@'%'`);
      return `mysql://${READER.user}:${encodeURIComponent(READER.password)}@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      await admin.end().catch(() => undefined);
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (server.exitCode === null) server.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
