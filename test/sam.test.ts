/**
 * `npm run sam` as a user runs it, with stand-ins for SAM CLI and Docker on PATH
 * (test/support/sam-stand-in.mjs runs the template's built assets the way SAM's containers would,
 * host names and architecture included; test/sam-cli.test.ts runs the real ones, `npm run test:sam`).
 * Here Docker's bridge is 127.0.0.2/8: its gateway, where `host.docker.internal` leads, is not the
 * 127.0.0.1 DynamoDB Local listens on, as on a real Docker host. The wrapper synthesizes for this
 * host, relays the bridge to `npm start`'s DynamoDB Local (here, this file's), writes the --env-vars
 * file, and the sample events, played in their documented order, answer their routes' statuses.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureApiKey } from '../lib/api-keys/index.js';
import { routes } from '../lib/routes.js';
import { hostArchitecture } from '../infra/context.js';
import { functionLogicalId, routesTemplateIn, type SynthesizedTemplate } from '../infra/function-ids.js';
import { loadSampleRequests, SAMPLE_API_KEY, SAMPLE_SECURE_KEY } from '../lib/local/sample-events.js';

/** Every route's sample, from its resource's folder, in the order they play. */
const sampleRequests = await loadSampleRequests();

const work = mkdtempSync(path.join(tmpdir(), 'store-api-sam-'));
const bin = path.join(work, 'bin');
const dataDir = path.join(work, 'data');
const samDir = path.join(work, 'sam');
const commandLog = path.join(work, 'sam-commands.jsonl');
const BRIDGE_GATEWAY = '127.0.0.2';
const BRIDGE_SUBNET = '127.0.0.0/8';
// As `npm start` would, this file's table is set up and the sample key sealed under the data dir's secret.
process.env.STORE_SECRET = 'sam test secret';

beforeAll(async () => {
  for (const dir of [bin, dataDir]) rmSync(dir, { recursive: true, force: true });
  await import('node:fs/promises').then(({ mkdir }) => Promise.all([mkdir(bin), mkdir(dataDir)]));
  writeFileSync(path.join(bin, 'sam'), `#!/bin/sh\nexec "${process.execPath}" "${path.resolve('test/support/sam-stand-in.mjs')}" "$@"\n`, { mode: 0o755 });
  // Docker's answer for its bridge network (docker network inspect bridge --format '{{json .IPAM.Config}}').
  writeFileSync(path.join(bin, 'docker'), `#!/bin/sh\necho '${JSON.stringify([{ Subnet: BRIDGE_SUBNET, Gateway: BRIDGE_GATEWAY }])}'\n`, { mode: 0o755 });
  // What `npm start` leaves in its data dir while it runs: its DynamoDB Local's endpoint and its secret.
  writeFileSync(path.join(dataDir, 'dynamodb-endpoint'), process.env.DYNAMODB_ENDPOINT!);
  writeFileSync(path.join(dataDir, 'secret'), 'sam test secret');
  await ensureApiKey(SAMPLE_API_KEY, SAMPLE_SECURE_KEY);
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `npm run sam -- <args>`, with the stand-in first on PATH. */
function npmRunSam(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'lib/cli/sam.ts', ...args], {
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, DATA_DIR: dataDir, STORE_SAM_DIR: samDir, SAM_STAND_IN_LOG: commandLog, SAM_STAND_IN_GATEWAY: BRIDGE_GATEWAY, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const commandsRun = (): string[][] =>
  readFileSync(commandLog, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as string[]);

describe('npm run sam', () => {
  it('plays every sample event in its documented order, each answering its route status, through the host-architecture build', async () => {
    const { code, stdout, stderr } = await npmRunSam(['play', '--skip-pull-image']);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(`synthesizing for ${hostArchitecture()}`);
    expect(stdout).toContain(`all ${sampleRequests.length} sample events answered their route's status`);
    expect(
      stdout
        .trim()
        .split('\n')
        .filter((line) => line.startsWith('ok'))
        .map((line) => line.split(/\s+/)[1]),
    ).toEqual(sampleRequests.map((s) => s.route));

    const template = routesTemplateIn(path.join(samDir, `cdk.out.${hostArchitecture()}`))!;
    const synthesized = JSON.parse(readFileSync(template, 'utf8')) as SynthesizedTemplate;
    const invocations = commandsRun();
    expect(invocations).toHaveLength(sampleRequests.length);
    for (const [i, args] of invocations.entries()) {
      expect(args.slice(0, 2)).toEqual(['local', 'invoke']);
      expect(args[args.indexOf('-t') + 1]).toBe(path.relative(process.cwd(), template));
      expect(args[4]).toBe(functionLogicalId(synthesized, sampleRequests[i]!.route));
      expect(args.join(' ')).toContain('--add-host host.docker.internal:host-gateway');
      expect(args.at(-1)).toBe('--skip-pull-image');
    }
    // The printed command is the one that ran.
    expect(stderr).toContain(`$ sam ${invocations[0]!.join(' ')}`);
    // A synthesis and a fresh process per sample: about a minute alone, up to three beside two other test files.
  }, 240_000);

  it('invokes one route by name with its sample, without synthesizing again when nothing changed', async () => {
    rmSync(commandLog, { force: true });
    const { code, stdout, stderr } = await npmRunSam(['invoke', 'tax-rules/get']);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('template up to date');
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({ statusCode: 200 });
    const env = JSON.parse(readFileSync(path.join(samDir, 'env.json'), 'utf8')) as Record<string, Record<string, string>>;
    // Every route's function declares the endpoint the file sets (the publisher and the webhooks' worker do not).
    const routeFunctions = Object.values(env).filter((variables) => 'DYNAMODB_ENDPOINT' in variables);
    expect(routeFunctions).toHaveLength(routes.length);
    // The relay's port on the bridge, which the wrapper said, not DynamoDB Local's own.
    const relayed = /relaying 127\.0\.0\.2:(\d+) \(Docker's bridge, for its subnet 127\.0\.0\.0\/8 only\) to DynamoDB Local on 127\.0\.0\.1:(\d+)/.exec(stderr);
    expect(relayed, stderr).not.toBeNull();
    expect(relayed![2]).toBe(new URL(process.env.DYNAMODB_ENDPOINT!).port);
    for (const variables of routeFunctions) {
      expect(variables).toMatchObject({ STORE_TABLE_NAME: process.env.STORE_TABLE_NAME, DYNAMODB_ENDPOINT: `http://host.docker.internal:${relayed![1]}` });
    }
  }, 180_000);

  it('starts the API on 3001, or the port asked for, with the extra arguments after its own', async () => {
    rmSync(commandLog, { force: true });
    expect((await npmRunSam(['api'])).code).toBe(0);
    expect((await npmRunSam(['api', '--port', '3005', '--warm-containers', 'EAGER'])).code).toBe(0);
    const [defaults, chosen] = commandsRun();
    expect(defaults!.slice(0, 2)).toEqual(['local', 'start-api']);
    expect(defaults![defaults!.indexOf('--port') + 1]).toBe('3001');
    expect(chosen![chosen!.indexOf('--port') + 1]).toBe('3005');
    expect(chosen!.slice(-2)).toEqual(['--warm-containers', 'EAGER']);
  }, 180_000);

  it("refuses, before it synthesizes or runs anything, a data dir whose secret is not the table's", async () => {
    const otherDir = path.join(work, 'other-data');
    await import('node:fs/promises').then(({ mkdir }) => mkdir(otherDir, { recursive: true }));
    writeFileSync(path.join(otherDir, 'dynamodb-endpoint'), process.env.DYNAMODB_ENDPOINT!);
    writeFileSync(path.join(otherDir, 'secret'), 'the secret of another data dir');
    rmSync(commandLog, { force: true });
    const { code, stderr } = await npmRunSam(['invoke', 'tax-rules/get'], { DATA_DIR: otherDir, STORE_SECRET: '' });
    expect(code).toBe(2);
    expect(stderr).toContain(`is sealed under another server secret than this process's: it was sealed under a secret given as STORE_SECRET`);
    expect(stderr).toContain(`this process has the secret file of the data dir ${otherDir}`);
    expect(stderr).not.toContain('synthesizing');
    expect(() => commandsRun()).toThrow();
  });

  it('names the routes it knows when given one it does not', async () => {
    const { code, stderr } = await npmRunSam(['invoke', 'TaxRulesGetFunction']);
    expect(code).toBe(2);
    expect(stderr).toContain('no route "TaxRulesGetFunction"');
    expect(stderr).toContain('tax-rules/get');
  });
});
