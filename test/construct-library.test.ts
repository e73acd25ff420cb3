/**
 * The construct library as a CDK user installs it: `npm pack` (which builds dist/ by `prepack`), the
 * tarball installed with aws-cdk-lib and constructs in an app of its own, and that app run by plain
 * Node: no TypeScript loader, no esbuild, no checkout of ours.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const run = promisify(execFile);
const versionOf = (name: string): string => (JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/** An embedding app: the Prod stage of the README, and, when asked, a bucket the AwsSolutions checks refuse. */
const APP = `
import { App, Stack } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { StoreApiStage } from 'store-api/infra';

const app = new App({ outdir: process.env.OUT });
const stage = new StoreApiStage(app, 'Prod', { env: { account: '123456789012', region: 'eu-west-1' }, alarmEmail: 'ops@example.com' });
if (process.env.CARELESS) new Bucket(new Stack(stage, 'Careless'), 'Open');
app.synth();
`;

/** The same library from TypeScript: its declarations say what the props take. */
const TYPED_APP = `
import { App } from 'aws-cdk-lib';
import { DEPLOYMENTS, StoreApi, StoreApiStage, type StoreApiStageProps } from 'store-api/infra';

const props: StoreApiStageProps = { disposable: true, deployment: DEPLOYMENTS[0], corsOrigins: ['https://admin.example.com'] };
const stage = new StoreApiStage(new App(), 'Beta', props);
const store: StoreApi = stage.store;
export const url: string = store.url;
// @ts-expect-error: a deployment is one of DEPLOYMENTS
new StoreApiStage(new App(), 'Prod', { deployment: 'gradually' });
`;

let work: string;
let app: string;
let tarball: string;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'store-api-library-'));
  execFileSync('npm', ['pack', '--pack-destination', work], { cwd: root, stdio: 'ignore' });
  tarball = path.join(work, readdirSync(work).find((file) => file.endsWith('.tgz'))!);
  app = path.join(work, 'app');
  mkdirSync(app);
  writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({
      name: 'embedding-app',
      private: true,
      type: 'module',
      dependencies: { 'aws-cdk-lib': versionOf('aws-cdk-lib'), constructs: versionOf('constructs'), 'store-api': `file:${tarball}` },
    }),
  );
  // From npm's cache, which the repository's own `npm ci` filled.
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: app });
  writeFileSync(path.join(app, 'app.mjs'), APP);
}, 240_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the packed construct library', () => {
  it('packs compiled JavaScript, declarations and prebuilt functions, and installs with aws-cdk-lib and constructs as the app’s own', () => {
    const installed = JSON.parse(readFileSync(path.join(app, 'node_modules/store-api/package.json'), 'utf8')) as Record<string, any>;
    expect(installed.exports['./infra']).toEqual({ types: './dist/types/infra/index.d.ts', default: './dist/infra/index.js' });
    expect(Object.keys(installed.dependencies)).toEqual(['cdk-nag']);
    expect(Object.keys(installed.peerDependencies).sort()).toEqual(['aws-cdk-lib', 'constructs']);
    const files = readdirSync(path.join(app, 'node_modules/store-api/dist'), { recursive: true }) as string[];
    expect(files).toContain('functions/products/list/index.mjs');
    expect(files).toContain('types/infra/index.d.ts');
    expect(files.some((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toBe(false);
    // One aws-cdk-lib: the app's.
    expect(readdirSync(path.join(app, 'node_modules/store-api'))).not.toContain('node_modules');
  });

  it('synthesizes StoreApiStage from a plain JavaScript app, each function from its prebuilt bundle', async () => {
    const out = path.join(work, 'synth');
    await run('node', ['app.mjs'], { cwd: app, env: { ...process.env, OUT: out } });
    const assembly = path.join(out, 'assembly-Prod');
    const templates = readdirSync(assembly).filter((file) => file.endsWith('.template.json'));
    expect(templates.map((file) => file.replace(/[0-9A-F]{8}\.template\.json$/, ''))).toEqual(
      expect.arrayContaining(['ProdStoreApiProdData', 'ProdStoreApiProdRoutes', 'ProdStoreApiProdCatalogRoutes', 'ProdStoreApiProdVocabularyRoutes', 'ProdStoreApiProdApi']),
    );
    // The store's own functions: each names its stage (infra/constructs/bundled-function.ts).
    const functions = templates.flatMap((file) => {
      const template = JSON.parse(readFileSync(path.join(assembly, file), 'utf8')) as { Resources: Record<string, { Type: string; Properties: any }> };
      return Object.values(template.Resources).filter((resource) => resource.Type === 'AWS::Lambda::Function' && resource.Properties.Environment?.Variables?.STORE_STAGE);
    });
    expect(functions.length).toBeGreaterThan(50);
    for (const fn of functions) {
      const hash = String(fn.Properties.Code.S3Key).replace(/\.zip$/, '');
      expect(readdirSync(path.join(out, `asset.${hash}`))).toContain('index.mjs');
      expect(fn.Properties.Handler).toMatch(/^index\.(handler|isComplete)$/);
    }
  }, 120_000);

  it('keeps its AwsSolutions checks in the app: a non-compliant bucket in the stage fails the synth', async () => {
    const failed = await run('node', ['app.mjs'], { cwd: app, env: { ...process.env, OUT: path.join(work, 'careless'), CARELESS: '1' } }).then(
      () => undefined,
      (error: { stderr: string; stdout: string }) => `${error.stdout}${error.stderr}`,
    );
    expect(failed).toContain('AwsSolutions-S1');
    expect(failed).toContain('Careless');
  }, 120_000);

  it('refuses, loudly, an app that loads a second aws-cdk-lib for it, where the checks would silently pass', async () => {
    // As a linked checkout brings its own: the package then resolves another copy than the app's.
    const own = path.join(app, 'node_modules/store-api/node_modules');
    mkdirSync(own);
    symlinkSync(path.join(root, 'node_modules/aws-cdk-lib'), path.join(own, 'aws-cdk-lib'));
    try {
      const failed = await run('node', ['app.mjs'], { cwd: app, env: { ...process.env, OUT: path.join(work, 'two-copies'), CARELESS: '1' } }).then(
        () => undefined,
        (error: { stderr: string }) => error.stderr,
      );
      expect(failed).toContain('store-api/infra loads another copy of aws-cdk-lib than your app');
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  }, 120_000);

  it('types what it exports for a TypeScript app: a prop it cannot take is an error', async () => {
    writeFileSync(path.join(app, 'app.ts'), TYPED_APP);
    writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ['app.ts'] }),
    );
    const checked = await run(path.join(root, 'node_modules/.bin/tsc'), ['-p', '.'], { cwd: app }).then(
      () => 'clean',
      (error: { stdout: string }) => error.stdout,
    );
    expect(checked).toBe('clean');
  }, 60_000);
});
