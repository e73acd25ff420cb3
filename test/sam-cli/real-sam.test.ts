/**
 * `npm run sam` with the real SAM CLI and Docker (`npm run test:sam`; not part of `npm test`, which
 * has test/sam.test.ts's stand-ins: it needs Docker running, SAM CLI on PATH and Lambda's Node 24
 * image, minutes of containers). As the README writes it: the functions run in Lambda's containers
 * against this file's DynamoDB Local, which listens on 127.0.0.1 only and is reached from the
 * containers through the wrapper's relay on Docker's bridge, and from nowhere else.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureApiKey } from '../../lib/api-keys/index.js';
import { signBody } from '../../lib/api-keys/signature.js';
import { dockerBridge } from '../../lib/local/bridge-relay.js';
import { freePort } from '../../lib/local/dynamodb-local.js';
import { loadSampleRequests, SAMPLE_API_KEY, SAMPLE_SECURE_KEY } from '../../lib/local/sample-events.js';

/** Every route's sample, from its resource's folder, in the order they play. */
const sampleRequests = await loadSampleRequests();

const work = mkdtempSync(path.join(tmpdir(), 'store-api-real-sam-'));
const dataDir = path.join(work, 'data');
process.env.STORE_SECRET = 'real sam test secret';

beforeAll(async () => {
  const sam = spawnSync('sam', ['--version'], { encoding: 'utf8' });
  if (sam.status !== 0) throw new Error('SAM CLI is not on PATH: install it as docs/deploying.md says (`sam local`)');
  if (spawnSync('docker', ['info'], { encoding: 'utf8' }).status !== 0) throw new Error('Docker is not running: SAM CLI runs the functions in its containers');
  mkdirSync(dataDir);
  // What `npm start` leaves in its data dir while it runs: its DynamoDB Local's endpoint and its secret.
  writeFileSync(path.join(dataDir, 'dynamodb-endpoint'), process.env.DYNAMODB_ENDPOINT!);
  writeFileSync(path.join(dataDir, 'secret'), process.env.STORE_SECRET!);
  await ensureApiKey(SAMPLE_API_KEY, SAMPLE_SECURE_KEY);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const env = () => ({ ...process.env, DATA_DIR: dataDir, STORE_SAM_DIR: path.join(work, 'sam'), SAM_CLI_TELEMETRY: '0' });

function npmRunSam(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/cli/sam.ts', ...args], { env: env() });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Whether anything accepts a connection at host:port. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    const settle = (accepted: boolean) => {
      socket.destroy();
      resolve(accepted);
    };
    socket.once('connect', () => settle(true));
    socket.once('error', () => settle(false));
  });
}

describe('npm run sam, with SAM CLI and Docker', () => {
  it("leaves DynamoDB Local private: nothing answers on the bridge's gateway at its port", async () => {
    const bridge = dockerBridge();
    expect(bridge).toBeDefined();
    expect(await accepts(bridge!.gateway, Number(new URL(process.env.DYNAMODB_ENDPOINT!).port))).toBe(false);
  });

  it("plays every sample event in Lambda's containers, each answering its route's status", async () => {
    const { code, stdout, stderr } = await npmRunSam(['play', '--skip-pull-image']);
    expect(code, `${stdout}\n${stderr.slice(-3000)}`).toBe(0);
    expect(stderr).toMatch(/relaying [\d.]+:\d+ \(Docker's bridge/);
    expect(stdout).toContain(`all ${sampleRequests.length} sample events answered their route's status`);
  }, 900_000);

  it('invokes one route as the README writes it', async () => {
    const { code, stdout, stderr } = await npmRunSam(['invoke', 'tax-rules/get', '--skip-pull-image']);
    expect(code, stderr.slice(-3000)).toBe(0);
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({ statusCode: 200 });
  }, 180_000);

  it('serves the API with sam local start-api, a signed request answered from DynamoDB Local, and closes its relay with it', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'lib/cli/sam.ts', 'api', '--port', String(port), '--skip-pull-image'], { env: env() });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    try {
      const until = Date.now() + 300_000;
      while (!(await accepts('127.0.0.1', port))) {
        if (Date.now() > until || child.exitCode !== null) throw new Error(`start-api did not listen on ${port}: ${output.slice(-3000)}`);
        await pause(500);
      }
      const relayPort = Number(/relaying [\d.]+:(\d+)/.exec(output)![1]);
      const response = await fetch(`http://127.0.0.1:${port}/api/tax-rules/1?sign=${signBody(SAMPLE_SECURE_KEY, '')}`, { headers: { Authorization: `Token ${SAMPLE_API_KEY}` } });
      expect(response.status, output.slice(-3000)).toBe(200);
      expect(((await response.json()) as Array<{ ID: number }>)[0]!.ID).toBe(1);
      child.kill('SIGINT');
      await once(child, 'close');
      expect(await accepts(dockerBridge()!.gateway, relayPort)).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 600_000);
});
