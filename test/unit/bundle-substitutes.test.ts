/** The bundles' substitutes (infra/constructs/bundled-function.ts): what one lacks fails the build, never a function at run time. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { bundleBuildOptions } from '../../infra/constructs/bundled-function.js';

const bundleOf = (source: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-api-substitutes-'));
  const entry = path.join(dir, 'entry.ts');
  writeFileSync(entry, source);
  return build({ ...bundleBuildOptions(entry, path.join(dir, 'out.mjs')), logLevel: 'silent', write: false });
};

describe('a substituted module', () => {
  it('bundles what it exports', async () => {
    await expect(bundleOf("import * as util from 'node:util';\nexport const f = () => util.isDeepStrictEqual;")).resolves.toBeDefined();
  });

  it('fails the build when a namespace import reads what it does not export (esbuild: import-is-undefined)', async () => {
    await expect(bundleOf("import * as util from 'node:util';\nexport const f = () => (util as Record<string, unknown>).parseArgs;")).rejects.toThrow(/parseArgs/);
  });
});
