/** `npm start` as a process, for the tests that meet it as a user does. */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll } from 'vitest';

const started: ChildProcessWithoutNullStreams[] = [];
// Whatever a failing test left running is stopped: SIGTERM makes npm start stop its DynamoDB Local too.
afterAll(() => {
  for (const child of started) if (child.exitCode === null) child.kill('SIGTERM');
});

/**
 * Starts `npm start`'s entry point and resolves with its output once it listens. `ownGroup`: as a
 * shell starts a command, the leader of a process group of its own (which `process.kill(-pid)` signals whole).
 */
export function start(env: Record<string, string>, { ownGroup = false } = {}): { child: ChildProcessWithoutNullStreams; ready: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/local/start.ts'], {
    env: { ...process.env, ...env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    detached: ownGroup,
  });
  started.push(child);
  let output = '';
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
      if (output.includes('listening on')) resolve(output);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
  return { child, ready };
}

/**
 * The environment of a command as a user's shell runs it: this test process's own table, endpoint
 * and secret left out (a test file has its own), and `env` added.
 */
export function usersShell(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !['DYNAMODB_ENDPOINT', 'STORE_TABLE_NAME', 'STORE_SECRET'].includes(name)));
  return { ...inherited, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env };
}

/** The pids of the Java processes (DynamoDB Local) working on `dataDir`, on `port` when given: one per line, empty when none. */
export const dynamoDbLocalsOn = (dataDir: string, port?: number): string =>
  spawnSync('pgrep', ['-f', `dbPath ${dataDir}${port ? ` -port ${port} ` : ''}`])
    .stdout.toString()
    .trim();
