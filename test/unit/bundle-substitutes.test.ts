/**
 * What a function's bundle takes from files of ours (`BUNDLE.substitutes`,
 * infra/constructs/bundled-function.ts): node:http and node:util read export by export, the SDK's
 * credentials from Lambda's environment. Each bundle here is built as a function's is and run in a
 * fresh Node process.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleBuildOptions } from '../../infra/constructs/bundled-function.js';

const dir = mkdtempSync(path.join(tmpdir(), 'substitutes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Bundles `source` as a function is bundled, and runs it in a fresh Node process with `environment`: what it printed, and the bundle. */
async function bundleAndRun(source: string, environment: Record<string, string> = {}): Promise<{ printed: string; bundle: string }> {
  const entry = path.join(dir, `entry-${Math.random().toString(36).slice(2)}.ts`);
  writeFileSync(entry, source);
  const outfile = entry.replace(/\.ts$/, '.mjs');
  // The entry lives outside the repository: its packages are the repository's.
  await build({ ...bundleBuildOptions(entry, outfile), nodePaths: [path.resolve(import.meta.dirname, '../../node_modules')], logLevel: 'silent' });
  const run = spawnSync(process.execPath, [outfile], { encoding: 'utf8', env: { PATH: process.env.PATH, ...environment } });
  if (run.status !== 0) throw new Error(run.stderr);
  return { printed: run.stdout.trim(), bundle: readFileSync(outfile, 'utf8') };
}

/** Node's own modules loaded so far whose names match. */
const loadedLike = (pattern: string) => `process.moduleLoadList.filter((m) => /${pattern}/.test(m)).length`;

describe("a function's bundle", () => {
  it("reads node:http's and node:util's exports as the built-ins have them: @middy/util's reason phrases, a delivery's Agent", async () => {
    const { printed, bundle } = await bundleAndRun(`
      import { createError } from '@middy/util';
      import http, { Agent, STATUS_CODES, request } from 'node:http';
      import { isDeepStrictEqual } from 'node:util';
      console.log(JSON.stringify([createError(413).message, STATUS_CODES[404], new Agent() instanceof http.Agent, request === http.request, isDeepStrictEqual({ a: [1] }, { a: [1] })]));
    `);
    expect(JSON.parse(printed)).toEqual(['Payload Too Large', 'Not Found', true, true, true]);
    expect(bundle).not.toMatch(/from\s*"(?:node:)?(?:http|util)"/);
  });

  it('loads neither Node’s fetch (undici) nor worker_threads for them', async () => {
    const { printed } = await bundleAndRun(`
      import { STATUS_CODES } from 'node:http';
      import { isDeepStrictEqual } from 'node:util';
      console.log(JSON.stringify([STATUS_CODES[200], isDeepStrictEqual(1, 1), ${loadedLike('undici|worker_threads|parse_args')}]));
    `);
    expect(JSON.parse(printed)).toEqual(['OK', true, 0]);
  });

  it('fails to build, naming it, where a module imports what the substitute does not give', async () => {
    await expect(bundleAndRun(`import { globalAgent } from 'node:http'; console.log(globalAgent);`)).rejects.toThrow(/globalAgent/);
  });

  it("signs the SDK's requests with the credentials Lambda puts in the environment, and looks nowhere else", async () => {
    const source = `
      import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
      const credentials = await new DynamoDBClient({ region: 'us-east-1' }).config.credentials();
      console.log(JSON.stringify([credentials.accessKeyId, credentials.sessionToken]));
    `;
    const { printed, bundle } = await bundleAndRun(source, { AWS_ACCESS_KEY_ID: 'AKIDLAMBDA', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' });
    expect(JSON.parse(printed)).toEqual(['AKIDLAMBDA', 'token']);
    expect(bundle).not.toContain('AWS_CONTAINER_CREDENTIALS_FULL_URI');
    await expect(bundleAndRun(source)).rejects.toThrow(/AWS_ACCESS_KEY_ID/);
  });
});
