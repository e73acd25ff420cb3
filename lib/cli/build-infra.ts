/**
 * `npm run build:infra` (and `npm pack`, by `prepack`): the construct library as CDK users install
 * one, in dist/ (never committed):
 *   dist/infra/index.js      the library (infra/index.ts and what it imports), one ES module;
 *                            aws-cdk-lib, constructs and cdk-nag stay imports, resolved from the app
 *                            that installs it (the first two are peers: one copy of each, which
 *                            cdk-nag needs to see the store's constructs)
 *   dist/types/**.d.ts       its declarations: what infra/index.ts exports, and what those name
 *   dist/functions/<module>/ every handler module of functions/ prebuilt, as a synth in the
 *                            repository bundles it (infra/constructs/bundled-function.ts), with the
 *                            files its functions read beside it (infra/function-assets.ts)
 * An app that installs the package synthesizes from these alone: no TypeScript loader, no esbuild,
 * none of the functions' dependencies, no lockfile of ours.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { bundleAllOptions, handlerModules, placeLazyClients, prebuiltDirOf } from '../../infra/constructs/bundled-function.js';
import { assetsOf } from '../../infra/function-assets.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = path.join(root, 'dist');

/** The packages the library imports rather than bundles: the app's own. */
const APP_PACKAGES = ['aws-cdk-lib', 'aws-cdk-lib/*', 'constructs', 'cdk-nag'];

/** Every handler module prebuilt in one esbuild run, as a synth in the repository builds them, with the files its functions read beside it. */
async function prebuildFunctions(): Promise<number> {
  const modules = handlerModules();
  const functions = path.join(dist, 'functions');
  await esbuild.build({
    ...bundleAllOptions(
      modules.map((entry) => [prebuiltDirOf(entry), path.join(root, entry)]),
      functions,
    ),
    logLevel: 'warning',
  });
  const lazyClients = mkdtempSync(path.join(tmpdir(), 'store-api-lazy-clients-'));
  try {
    placeLazyClients(
      esbuild,
      modules.map((entry) => path.join(functions, prebuiltDirOf(entry))),
      lazyClients,
    );
  } finally {
    rmSync(lazyClients, { recursive: true, force: true });
  }
  for (const entry of modules) for (const asset of assetsOf(entry)) copyFileSync(path.join(root, asset), path.join(functions, prebuiltDirOf(entry), path.basename(asset)));
  return modules.length;
}

async function buildLibrary(): Promise<void> {
  await esbuild.build({
    entryPoints: [path.join(root, 'infra/index.ts')],
    outfile: path.join(dist, 'infra/index.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    // The engines the package declares.
    target: 'node22',
    external: APP_PACKAGES,
    // Where the prebuilt functions are, from dist/infra/index.js.
    define: { STORE_API_PREBUILT_FUNCTIONS: JSON.stringify('../functions/') },
    // CommonJS dependencies bundled into ESM still call require().
    banner: { js: "import { createRequire as storeApiRequire } from 'node:module'; const require = storeApiRequire(import.meta.url);" },
    logLevel: 'warning',
  });
}

/** The declarations of infra/index.ts, and of every module they import: the rest of the repository's are not the library's. */
function buildDeclarations(): number {
  const out = mkdtempSync(path.join(tmpdir(), 'store-api-types-'));
  try {
    const config = path.join(out, 'tsconfig.json');
    writeFileSync(
      config,
      JSON.stringify({
        extends: path.join(root, 'tsconfig.json'),
        compilerOptions: { noEmit: false, declaration: true, emitDeclarationOnly: true, rootDir: root, outDir: path.join(out, 'emitted'), typeRoots: [path.join(root, 'node_modules/@types')] },
        include: [],
        files: [path.join(root, 'infra/index.ts')],
      }),
    );
    const tsc = spawnSync(path.join(root, 'node_modules/.bin/tsc'), ['-p', config], { encoding: 'utf8' });
    if (tsc.status !== 0) throw new Error(`tsc could not emit the library's declarations:\n${tsc.stdout}${tsc.stderr}`);
    const copied = new Set<string>();
    const copy = (file: string): void => {
      if (copied.has(file)) return;
      copied.add(file);
      const text = readFileSync(path.join(out, 'emitted', file), 'utf8');
      const target = path.join(dist, 'types', file);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, text);
      for (const [, specifier] of text.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)) copy(path.join(path.dirname(file), `${specifier}.d.ts`));
    };
    copy('infra/index.d.ts');
    return copied.size;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

rmSync(dist, { recursive: true, force: true });
const [functions] = await Promise.all([prebuildFunctions(), buildLibrary()]);
const declarations = buildDeclarations();
console.log(`dist/: the library (dist/infra/index.js), ${declarations} declaration files, ${functions} functions prebuilt`);
