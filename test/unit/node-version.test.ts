/**
 * The project's Node.js conventions (issue 45, point 4): `.nvmrc` names the Node it is developed on,
 * `npm start` and `npm test` refuse an older one than `engines` with a message that says what to do
 * (lib/cli/check-node.mjs, their pre-scripts), and every dependency's install script is either
 * allowed or denied in `allowScripts`, so that `npm ci` asks nothing.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const packageJson = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string }; scripts: Record<string, string>; allowScripts: Record<string, boolean> };

/** Runs the check as a Node of `version` would (process.version and process.versions.node say so). */
function checkAs(version: string) {
  const pretend = path.join(tmpdir(), `store-api-node-${version}.cjs`);
  writeFileSync(pretend, `Object.defineProperty(process.versions, 'node', { value: ${JSON.stringify(version)} }); Object.defineProperty(process, 'version', { value: 'v${version}' });\n`);
  return spawnSync(process.execPath, ['--require', pretend, 'lib/cli/check-node.mjs'], { encoding: 'utf8' });
}

describe("the project's Node.js", () => {
  it('is named by .nvmrc, and checked before npm start and npm test', () => {
    expect(readFileSync('.nvmrc', 'utf8').trim()).toBe('24');
    expect(packageJson.scripts.prestart).toBe('node lib/cli/check-node.mjs');
    expect(packageJson.scripts.pretest).toBe('node lib/cli/check-node.mjs');
  });

  it('refuses a Node older than engines, saying which is needed and how to get it', () => {
    const old = checkAs('20.20.2');
    expect(old.status).toBe(1);
    expect(old.stderr).toContain(`store-api needs Node.js ${packageJson.engines.node} (package.json "engines"); this is v20.20.2. Use Node.js 24 (.nvmrc`);
    expect(checkAs('22.21.9').status).toBe(1);
    for (const fine of ['22.22.0', '24.0.0', process.versions.node]) expect(checkAs(fine).status, fine).toBe(0);
  });
});

describe("dependencies' install scripts", () => {
  it('are each allowed or denied in allowScripts: none left for npm ci to ask about', () => {
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    expect(withScripts.filter((name) => !(name in packageJson.allowScripts))).toEqual([]);
    // Scarf's script only reports the install to its maker: nothing the project needs.
    expect(packageJson.allowScripts['@scarf/scarf']).toBe(false);
  });
});
