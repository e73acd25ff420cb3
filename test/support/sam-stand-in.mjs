// A stand-in for SAM CLI where there is no Docker registry to pull Lambda's images from (the test
// puts a `sam` that runs it first on PATH). It takes SAM's command line and does what SAM would:
//   sam local invoke -t <template> <logical id> -e <event> --env-vars <file> [--add-host name:ip]... [more]
// finds the function in the template (or fails as SAM does: "Function X not found in template"),
// refuses one built for another architecture (as Docker without qemu does), gives it the
// environment the --env-vars file names for it, resolves host names the way the container would
// (`host.docker.internal` only through --add-host on Linux; `host-gateway` is the bridge's gateway), runs its
// asset in a fresh Node process (run-built-function.mjs) and prints the answer as its last line.
// `sam local start-api` is only recorded. Every command line is appended to $SAM_STAND_IN_LOG.
import { spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
if (process.env.SAM_STAND_IN_LOG) appendFileSync(process.env.SAM_STAND_IN_LOG, `${JSON.stringify(argv)}\n`);
const fail = (message) => {
  process.stderr.write(`Error: ${message}\n`);
  process.exit(1);
};

if (argv[0] !== 'local' || !['invoke', 'start-api'].includes(argv[1])) fail(`the stand-in knows only local invoke and local start-api, not ${argv.join(' ')}`);
const options = { hosts: [], positional: [] };
for (let i = 2; i < argv.length; i++) {
  const arg = argv[i];
  if (arg === '-t' || arg === '--template') options.template = argv[++i];
  else if (arg === '-e' || arg === '--event') options.event = argv[++i];
  else if (arg === '--env-vars') options.envVars = argv[++i];
  else if (arg === '--add-host') options.hosts.push(argv[++i]);
  else if (arg === '--port' || arg === '-p') options.port = argv[++i];
  else if (!arg.startsWith('-')) options.positional.push(arg);
}
if (argv[1] === 'start-api') process.exit(0);

const template = JSON.parse(readFileSync(options.template, 'utf8'));
const logicalId = options.positional[0];
const resource = template.Resources[logicalId];
if (resource?.Type !== 'AWS::Lambda::Function') fail(`Function ${logicalId} not found in template`);
const hostArchitecture = process.arch === 'arm64' ? 'arm64' : 'x86_64';
const [architecture = 'x86_64'] = resource.Properties.Architectures ?? [];
if (architecture !== hostArchitecture) fail(`exec /var/lang/bin/node: exec format error (an ${architecture} image on an ${hostArchitecture} host)`);

// The container's /etc/hosts: what --add-host gives it; Docker Desktop (macOS, Windows) adds host.docker.internal itself.
// `host-gateway` is the Docker bridge's gateway address, never the host's loopback: the test names
// it (SAM_STAND_IN_GATEWAY, an address of this machine where nothing listens unless bound there).
const gateway = process.env.SAM_STAND_IN_GATEWAY;
if (!gateway) fail('SAM_STAND_IN_GATEWAY names the address host-gateway stands for');
const hosts = new Map(options.hosts.map((entry) => entry.split(':')).map(([name, ip]) => [name, ip === 'host-gateway' ? gateway : ip]));
if (process.platform !== 'linux' && !hosts.has('host.docker.internal')) hosts.set('host.docker.internal', gateway);
const environment = { ...(JSON.parse(readFileSync(options.envVars, 'utf8'))[logicalId] ?? {}) };
if (environment.DYNAMODB_ENDPOINT) {
  const url = new URL(environment.DYNAMODB_ENDPOINT);
  // A name the container cannot resolve stays unresolvable: `.invalid` never resolves (RFC 6761).
  url.hostname = hosts.get(url.hostname) ?? (url.hostname === 'localhost' || /^[\d.]+$/.test(url.hostname) ? url.hostname : `${url.hostname}.invalid`);
  environment.DYNAMODB_ENDPOINT = url.origin;
}

const asset = path.join(path.dirname(options.template), resource.Metadata['aws:asset:path']);
const [file, exportName] = resource.Properties.Handler.split('.');
const runner = path.join(path.dirname(fileURLToPath(import.meta.url)), 'run-built-function.mjs');
const run = spawnSync(process.execPath, [runner, path.join(asset, `${file}.mjs`), exportName, path.resolve(options.event)], {
  env: {
    PATH: process.env.PATH,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_LAMBDA_FUNCTION_NAME: logicalId,
    ...environment,
  },
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
});
process.stderr.write(run.stderr);
if (run.status !== 0) fail(`the function exited with ${run.status}`);
process.stdout.write(`${JSON.stringify(JSON.parse(run.stdout.trim().split('\n').at(-1)).response)}\n`);
