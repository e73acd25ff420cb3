/**
 * `npm run sam`: the deployed functions run by SAM CLI in Lambda's own containers, against the
 * DynamoDB Local of `npm start`, with what this machine needs:
 *
 *   npm run sam -- invoke <route> [event file] [sam args...]   one function, with its events/ sample by default
 *   npm run sam -- play [sam args...]                           every sample, in an order that works on a fresh table
 *   npm run sam -- api [--port N] [sam args...]                 `sam local start-api`, on 3001 by default
 *
 * Before SAM runs it synthesizes the app when a source is newer than the template (for the host's
 * architecture: an x86_64 Docker cannot run arm64 images without qemu), writes the `--env-vars` file
 * (lib/cli/sam-env.ts), and finds the route's function by the route named in its metadata. On Linux it
 * maps `host.docker.internal` to the host (`--add-host host.docker.internal:host-gateway`): Docker
 * Engine does not, and SAM CLI no longer runs containers in the host's network. That name is the
 * Docker bridge's gateway address, where `npm start`'s DynamoDB Local, on 127.0.0.1 only, does not
 * listen: for as long as SAM runs, a relay there lets the containers, and nothing else, reach it
 * (lib/local/bridge-relay.ts). Extra arguments go to `sam` unchanged; the command is printed before it runs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { routeByName, routes, type RouteDefinition, type RouteName } from '../routes.js';
import { hostArchitecture, type FunctionArchitecture } from '../../infra/context.js';
import { functionLogicalId, routesTemplateIn, type SynthesizedTemplate } from '../../infra/function-ids.js';
import { localValues, writeEnvVars, type LocalValues } from './sam-env.js';
import { checkTableSecret } from '../local/table-secret.js';
import { eventFile, loadSampleRequests } from '../local/sample-events.js';
import { dockerBridge, startBridgeRelay, type BridgeRelay } from '../local/bridge-relay.js';

/** `sam local start-api`'s port: `npm start` has 3000. */
export const DEFAULT_API_PORT = 3001;

export type SamCommandLine =
  | { command: 'invoke'; route: RouteDefinition; eventFile: string; passthrough: string[] }
  | { command: 'play'; passthrough: string[] }
  | { command: 'api'; port: number; passthrough: string[] };

const USAGE = `usage:
  npm run sam -- invoke <route> [event file] [sam args...]
  npm run sam -- play [sam args...]
  npm run sam -- api [--port N] [sam args...]
routes: ${routes.map((r) => r.name).join(', ')}`;

/** A route by its name (`tax-rules/get`) or its events/ file's stem (`tax-rules-get`). */
function routeNamed(name: string): RouteDefinition {
  const route = routes.find((r) => r.name === name || r.name.replace('/', '-') === name);
  if (!route) throw new Error(`no route ${JSON.stringify(name)}\n${USAGE}`);
  return route;
}

/** Reads the wrapper's command line; what it does not know is SAM's. */
export function parseCommandLine(argv: string[]): SamCommandLine {
  const [command, ...rest] = argv;
  if (command === 'invoke') {
    const [name, maybeEvent, ...more] = rest;
    if (!name || name.startsWith('-')) throw new Error(`invoke needs a route\n${USAGE}`);
    const route = routeNamed(name);
    const hasEvent = maybeEvent !== undefined && !maybeEvent.startsWith('-');
    return {
      command,
      route,
      eventFile: hasEvent ? maybeEvent : eventFile(route.name as RouteName),
      passthrough: hasEvent ? more : rest.slice(1),
    };
  }
  if (command === 'play') return { command, passthrough: rest };
  if (command === 'api') {
    let port = DEFAULT_API_PORT;
    const passthrough: string[] = [];
    for (let i = 0; i < rest.length; i++) {
      const arg = rest[i] ?? '';
      const inline = /^(?:--port|-p)=(.*)$/.exec(arg);
      if (arg === '--port' || arg === '-p' || inline) {
        const value = inline ? inline[1] : rest[++i];
        port = Number(value);
        if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new Error(`--port must be a port number, not ${JSON.stringify(value)}`);
      } else passthrough.push(arg);
    }
    return { command, port, passthrough };
  }
  throw new Error(USAGE);
}

/** What SAM's containers need on this platform to reach the host's DynamoDB Local. */
export const dockerHostArgs = (platform: NodeJS.Platform): string[] => (platform === 'linux' ? ['--add-host', 'host.docker.internal:host-gateway'] : []);

export interface SamTarget {
  template: string;
  envVars: string;
  platform: NodeJS.Platform;
}

/** `sam local invoke` of one function with one event. */
export const invokeArgs = (target: SamTarget, logicalId: string, event: string, passthrough: string[]): string[] => [
  'local',
  'invoke',
  '-t',
  target.template,
  logicalId,
  '-e',
  event,
  '--env-vars',
  target.envVars,
  ...dockerHostArgs(target.platform),
  ...passthrough,
];

/** `sam local start-api` of the whole template. */
export const startApiArgs = (target: SamTarget, port: number, passthrough: string[]): string[] => [
  'local',
  'start-api',
  '-t',
  target.template,
  '--env-vars',
  target.envVars,
  '--port',
  String(port),
  ...dockerHostArgs(target.platform),
  ...passthrough,
];

/** The command as a shell would take it, to print. */
export const shellLine = (argv: string[]): string => argv.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`)).join(' ');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The newest modification time of what a synth reads. */
function newestSource(): number {
  let newest = 0;
  const visit = (file: string) => {
    const stat = statSync(file);
    if (stat.isDirectory()) for (const entry of readdirSync(file)) visit(path.join(file, entry));
    else newest = Math.max(newest, stat.mtimeMs);
  };
  for (const source of ['infra', 'lib', 'functions', 'package-lock.json', 'cdk.json']) visit(path.join(root, source));
  return newest;
}

/** The template for `architecture`, synthesized again when a source is newer than it. */
function ensureTemplate(workDir: string, architecture: FunctionArchitecture): string {
  const outdir = path.join(workDir, `cdk.out.${architecture}`);
  const existing = routesTemplateIn(outdir);
  if (existing && statSync(existing).mtimeMs >= newestSource()) {
    console.error(`template up to date: ${path.relative(process.cwd(), existing)}`);
    return existing;
  }
  // One stack: SAM CLI reads one template, and `start-api` serves the API of the template it is given.
  const cdk = ['synth', '--quiet', '--no-notices', '-c', `architecture=${architecture}`, '-c', 'layout=single', '-o', outdir];
  console.error(`synthesizing for ${architecture}: cdk ${shellLine(cdk)}`);
  const synth = spawnSync(path.join(root, 'node_modules/.bin/cdk'), cdk, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const template = routesTemplateIn(outdir);
  if (synth.status !== 0 || !template) throw new Error(`cdk synth failed (exit ${synth.status})`);
  return template;
}

/** Runs `sam` with `argv`, printing the command first; resolves with its exit code and, when captured, its output. */
function runSam(argv: string[], capture: boolean): Promise<{ code: number; stdout: string }> {
  console.error(`$ sam ${shellLine(argv)}`);
  return new Promise((resolve) => {
    const child = spawn('sam', argv, { stdio: ['inherit', capture ? 'pipe' : 'inherit', 'inherit'] });
    // Stopped (Ctrl-C, a supervisor's SIGTERM), SAM is stopped too, and this process ends once it has: its relay closes with it.
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, forward);
    child.on('close', () => {
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.off(signal, forward);
    });
    let stdout = '';
    child.stdout?.on('data', (chunk) => (stdout += chunk));
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') {
        console.error('SAM CLI is not installed (https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/install-sam-cli.html): the command above is what would run.');
        resolve({ code: 127, stdout });
      } else resolve({ code: 1, stdout: `${error.message}` });
    });
    child.on('close', (code) => resolve({ code: code ?? 1, stdout }));
  });
}

/** `sam local invoke` prints the function's answer as its last line of standard output. */
function statusOf(stdout: string): number | undefined {
  try {
    return (JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as { statusCode?: number }).statusCode;
  } catch {
    return undefined;
  }
}

/** The relay from Docker's bridge to `npm start`'s DynamoDB Local at `hostEndpoint` (127.0.0.1), for as long as SAM runs. */
async function relayFromContainers(hostEndpoint: string): Promise<BridgeRelay> {
  const bridge = dockerBridge();
  if (!bridge) throw new Error('no Docker bridge network here (docker network inspect bridge): SAM CLI runs the functions in Docker, which must be running');
  const target = new URL(hostEndpoint);
  const relay = await startBridgeRelay(bridge, { host: target.hostname, port: Number(target.port) });
  console.error(`relaying ${bridge.gateway}:${relay.port} (Docker's bridge, for its subnet ${bridge.subnet} only) to DynamoDB Local on ${target.host}`);
  return relay;
}

async function main(argv: string[]): Promise<number> {
  const commandLine = parseCommandLine(argv);
  const workDir = path.resolve(process.env.STORE_SAM_DIR ?? path.join(root, '.sam'));
  mkdirSync(workDir, { recursive: true });
  const values = await localValues();
  let relay: BridgeRelay | undefined;
  if (values.hostEndpoint) {
    // The functions get this secret: on a table sealed under another one, every key would fail. Said before a synthesis.
    process.env.DYNAMODB_ENDPOINT = values.hostEndpoint;
    process.env.STORE_TABLE_NAME = values.STORE_TABLE_NAME;
    await checkTableSecret();
    relay = await relayFromContainers(values.hostEndpoint);
    values.DYNAMODB_ENDPOINT = `http://host.docker.internal:${relay.port}`;
  } else console.error('npm start does not seem to be running (no dynamodb-endpoint in its data dir): the functions will find no DynamoDB.');
  try {
    return await runCommand(commandLine, workDir, values);
  } finally {
    await relay?.close();
  }
}

async function runCommand(commandLine: SamCommandLine, workDir: string, values: LocalValues): Promise<number> {
  const template = ensureTemplate(workDir, hostArchitecture());
  const envVars = path.join(workDir, 'env.json');
  writeEnvVars(template, values, envVars);
  console.error(`wrote ${path.relative(process.cwd(), envVars)}: DynamoDB ${values.DYNAMODB_ENDPOINT}, table ${values.STORE_TABLE_NAME}`);
  const target: SamTarget = { template: path.relative(process.cwd(), template), envVars: path.relative(process.cwd(), envVars), platform: process.platform };
  const parsed = JSON.parse(readFileSync(template, 'utf8')) as SynthesizedTemplate;

  if (commandLine.command === 'api') return (await runSam(startApiArgs(target, commandLine.port, commandLine.passthrough), false)).code;
  if (commandLine.command === 'invoke') {
    const logicalId = functionLogicalId(parsed, commandLine.route.name);
    return (await runSam(invokeArgs(target, logicalId, commandLine.eventFile, commandLine.passthrough), false)).code;
  }
  // play: every sample in order, each checked against its route's status; stops at the first that differs.
  const sampleRequests = await loadSampleRequests();
  for (const sample of sampleRequests) {
    const route = routeByName(sample.route);
    const { code, stdout } = await runSam(invokeArgs(target, functionLogicalId(parsed, route.name), eventFile(sample.route), commandLine.passthrough), true);
    const status = statusOf(stdout);
    console.log(`${status === route.status ? 'ok  ' : 'FAIL'} ${sample.route.padEnd(22)} ${status ?? `no answer (sam exit ${code})`} (expected ${route.status})`);
    if (status !== route.status) return 1;
  }
  console.log(`all ${sampleRequests.length} sample events answered their route's status`);
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: Error) => {
      console.error(error.message);
      process.exit(2);
    },
  );
}
