/** The bundles' substitutes (infra/constructs/bundled-function.ts): what one lacks fails the build, never a function at run time. */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { bundleBuildOptions } from '../../infra/constructs/bundled-function.js';

const bundleOf = (source: string, write = false) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-api-substitutes-'));
  const entry = path.join(dir, 'entry.ts');
  const outfile = path.join(dir, 'out.mjs');
  writeFileSync(entry, source);
  return build({ ...bundleBuildOptions(entry, outfile), logLevel: 'silent', write }).then(() => outfile);
};

describe('a substituted module', () => {
  it('bundles what it exports', async () => {
    await expect(bundleOf("import * as util from 'node:util';\nexport const f = () => util.isDeepStrictEqual;")).resolves.toBeDefined();
  });

  it('fails the build when a namespace import reads what it does not export (esbuild: import-is-undefined)', async () => {
    await expect(bundleOf("import * as util from 'node:util';\nexport const f = () => (util as Record<string, unknown>).parseArgs;")).rejects.toThrow(/parseArgs/);
  });
});

describe("a bundle's credentials (lib/lambda-credentials.ts in place of the SDK's chain)", () => {
  // The SDK's clients import the chain by its package name: a bundle resolves it to ours.
  const printsCredentials = "import { defaultProvider } from '@aws-sdk/credential-provider-node';\nconsole.log(JSON.stringify(await defaultProvider()()));";
  const run = (bundle: string, env: Record<string, string>) =>
    promisify(execFile)(process.execPath, [bundle], { env: { PATH: process.env.PATH ?? '', ...env } }).then(({ stdout }) => JSON.parse(stdout) as { accessKeyId: string; sessionToken?: string });

  it("are the environment's, as Lambda hands them by default", async () => {
    const bundle = await bundleOf(printsCredentials, true);
    expect(await run(bundle, { AWS_ACCESS_KEY_ID: 'AKIDENV', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' })).toMatchObject({ accessKeyId: 'AKIDENV', sessionToken: 'token' });
  });

  it("are the local credentials endpoint's when the environment has none, as Lambda hands them to a snapshot (SnapStart)", async () => {
    const endpoint = createServer((request, response) => {
      if (request.headers.authorization !== 'container-token') return void response.writeHead(403).end();
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ AccessKeyId: 'AKIDCONTAINER', SecretAccessKey: 'secret', Token: 'session', Expiration: new Date(Date.now() + 3_600_000).toISOString() }));
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    try {
      const bundle = await bundleOf(printsCredentials, true);
      const uri = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/2018-06-01/credentials`;
      expect(await run(bundle, { AWS_CONTAINER_CREDENTIALS_FULL_URI: uri, AWS_CONTAINER_AUTHORIZATION_TOKEN: 'container-token' })).toMatchObject({
        accessKeyId: 'AKIDCONTAINER',
        sessionToken: 'session',
      });
    } finally {
      endpoint.close();
    }
  });
});
