import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, RemovalPolicy, Stack, Stage } from 'aws-cdk-lib';
import { ApplicationLogLevel, Architecture, Code, Function as LambdaFunction, LoggingFormat, Runtime, SystemLogLevel, Tracing, type FunctionOptions } from 'aws-cdk-lib/aws-lambda';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { FunctionArchitecture } from './function-facts.js';

/**
 * How every function is bundled (by the local esbuild on a synth in the repository, by
 * `npm run build:infra` for the packed library, and for the floor handler of `npm run bench`):
 * minified ESM for Node 24, with the AWS SDK bundled and tree-shaken from its ES modules, so that a
 * cold start loads one file instead of the runtime's SDK, module by module (the SDK team's advice
 * for Lambda).
 */
export const BUNDLE = {
  target: 'node24',
  minify: true,
  mainFields: ['module', 'main'],
  // CommonJS dependencies bundled into ESM still call require().
  banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  // The SQS client is loaded on first need, once per container (lib/events/dead-letters.ts), from
  // the Lambda runtime's own AWS SDK; so are CodeDeploy's and Lambda's, which only the pre-traffic
  // hook uses: no function parses them at init, and none is on a route's path to its answer.
  external: ['@aws-sdk/client-sqs', '@aws-sdk/client-codedeploy', '@aws-sdk/client-lambda'],
  /**
   * The clients a route's first request may load (lib/sealed-secrets.ts: KMS, to open an API key's
   * secure key; lib/secrets.ts: Secrets Manager, for the server secret): never parsed at init, yet
   * bundled, each into a file of its own beside the bundles that load it (`import('./<file>')`), so
   * that a first request loads the version package-lock.json pins, from one file, not the runtime's
   * SDK module by module (`placeLazyClients`).
   */
  lazyClients: { '@aws-sdk/client-kms': 'aws-sdk-client-kms.mjs', '@aws-sdk/client-secrets-manager': 'aws-sdk-client-secrets-manager.mjs' },
  /**
   * Modules a bundle takes from files of ours (esbuild's alias), each for a cold start's sake: the
   * bundled clients take Lambda's credentials from its environment (lib/lambda-credentials.ts: the
   * SDK's default chain, its other sources and their STS and SSO clients, about 130 KiB, are left
   * out); node:http and node:util are read export by export (lib/node-http.ts, lib/node-util.ts),
   * not loaded whole as ES modules are.
   */
  substitutes: {
    '@aws-sdk/credential-provider-node': 'lib/lambda-credentials.ts',
    'node:http': 'lib/node-http.ts',
    http: 'lib/node-http.ts',
    'node:util': 'lib/node-util.ts',
    util: 'lib/node-util.ts',
  },
} as const;

/** The esbuild options of a function's bundle as NodejsFunction gives them, for the bundles made outside a synth (the packed library's, the bench's). */
export const bundleBuildOptions = (entryPoint: string, outfile: string) => ({
  entryPoints: [entryPoint],
  outfile,
  bundle: true,
  platform: 'node' as const,
  format: 'esm' as const,
  target: BUNDLE.target,
  minify: BUNDLE.minify,
  mainFields: [...BUNDLE.mainFields],
  banner: { js: BUNDLE.banner },
  external: [...BUNDLE.external, ...Object.values(BUNDLE.lazyClients).map((file) => `./${file}`)],
  alias: {
    ...Object.fromEntries(Object.entries(BUNDLE.substitutes).map(([module, file]) => [module, path.join(root, file)])),
    ...Object.fromEntries(Object.entries(BUNDLE.lazyClients).map(([module, file]) => [module, `./${file}`])),
  },
  // A dependency that reads of a substitute what it does not export (`util.x` through a namespace
  // import) would get undefined at run time: esbuild's warning of it fails the build instead.
  logOverride: { 'import-is-undefined': 'error' as const },
});

/** The same options for many modules in one run: each `[name, entry]` to `<outdir>/<name>/index.mjs`, each bundle whole (no chunks shared). */
export const bundleAllOptions = (modules: readonly (readonly [name: string, entry: string])[], outdir: string) => {
  const { entryPoints: _one, outfile: _file, ...options } = bundleBuildOptions('', '');
  return { ...options, entryPoints: Object.fromEntries(modules.map(([name, entry]) => [`${name}/index`, entry])), outdir, outExtension: { '.js': '.mjs' } };
};

/**
 * Builds each of BUNDLE.lazyClients once (the whole client, as its bundles are built) and places it
 * beside every bundle of `bundleDirs` whose `index.mjs` loads it. `esbuild` is the caller's: the
 * repository's, which the packed library never loads.
 */
export function placeLazyClients(esbuild: Pick<typeof import('esbuild'), 'buildSync'>, bundleDirs: readonly string[], workDir: string): void {
  const { entryPoints: _entry, outfile: _file, alias, ...options } = bundleBuildOptions('', '');
  const lazy = Object.entries(BUNDLE.lazyClients);
  // A client bundled whole: its own module is not the file it is placed in.
  const ownAlias = Object.fromEntries(Object.entries(alias).filter(([module]) => !(module in BUNDLE.lazyClients)));
  for (const [module, file] of lazy) {
    esbuild.buildSync({ ...options, alias: ownAlias, stdin: { contents: `export * from '${module}';`, resolveDir: root, loader: 'js' }, outfile: path.join(workDir, file), logLevel: 'warning' });
  }
  for (const dir of bundleDirs) {
    const code = readFileSync(path.join(dir, 'index.mjs'), 'utf8');
    for (const [, file] of lazy) if (code.includes(`"./${file}"`)) copyFileSync(path.join(workDir, file), path.join(dir, file));
  }
}

/** Every handler module: each file of functions/ is one (`functions/<resource>/<action>.ts`). */
export function handlerModules(dir = 'functions'): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return handlerModules(file);
    return file.endsWith('.ts') ? [file] : [];
  });
}

/** The repository (in the repository), or the installed package's root (in the compiled library). */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Set by `npm run build:infra` when it compiles the library (lib/cli/build-infra.ts): the compiled
 * library ships every function prebuilt in dist/functions, beside dist/infra, so that an app that
 * installs the package synthesizes without the functions' sources, their dependencies, esbuild or
 * this repository's lockfile. Undeclared in the repository, which bundles each function from source.
 */
declare const STORE_API_PREBUILT_FUNCTIONS: string | undefined;
const prebuiltFunctions = typeof STORE_API_PREBUILT_FUNCTIONS === 'string' ? fileURLToPath(new URL(STORE_API_PREBUILT_FUNCTIONS, import.meta.url)) : undefined;

/** Where `npm run build:infra` puts a handler module's bundle, under dist/functions: its path without `.ts`. */
export const prebuiltDirOf = (entry: string): string => entry.replace(/^functions\//, '').replace(/\.ts$/, '');

/** What every function of the stack is given alike, from the stack's context. */
export interface FunctionSettings {
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  readonly architecture: FunctionArchitecture;
  /**
   * How long changes are kept (docs/changes-events-webhooks.md): every function has it, whatever it writes, so that
   * changes and feed items all expire alike (the placer also notes it in the table for the tools).
   */
  readonly changeRetentionDays: number;
  /** The stage's name (the store's id): the dimension its metrics carry, so that a release judges its own stage's traffic. */
  readonly stage: string;
}

export interface BundledFunctionProps extends FunctionSettings, Omit<FunctionOptions, 'environment' | 'logGroup' | 'architecture'> {
  /** The handler module, from the repository's root. */
  readonly entry: string;
  /** The module's export Lambda calls. @default 'handler' */
  readonly exportName?: string;
  readonly logGroup: ILogGroup;
  /** Files (from the repository's root) shipped beside the bundle, read when first needed. */
  readonly assets?: readonly string[] | undefined;
  /** The function's own environment (the retention and the stage are added to it). */
  readonly environment?: Record<string, string>;
}

/**
 * A function of the store: runtime, CPU, tracing, JSON logs, the retention of changes, retained
 * versions, and its handler bundled: by the local esbuild from the repository's source, or, in the
 * compiled library, the bundle `npm run build:infra` made of the same module with the same options.
 */
export function bundledFunction(scope: Construct, id: string, props: BundledFunctionProps): LambdaFunction {
  const { entry, exportName = 'handler', logGroup, logLevel, architecture, assets, environment, changeRetentionDays, stage, ...options } = props;
  const common = {
    ...options,
    environment: {
      ...environment,
      STORE_CHANGE_RETENTION_DAYS: String(changeRetentionDays),
      STORE_STAGE: stage,
      // The level is ours to apply (lib/log.ts): a line carrying the request's metrics is never dropped by it.
      ...(logLevel === 'WARN' || logLevel === 'ERROR' ? { STORE_LOG_LEVEL: logLevel.toLowerCase() } : {}),
    },
    runtime: Runtime.NODEJS_24_X,
    architecture: architecture === 'x86_64' ? Architecture.X86_64 : Architecture.ARM_64,
    logGroup,
    // Traces of each invocation; no X-Ray SDK in the bundle (HTTP APIs have no tracing of their own).
    tracing: Tracing.ACTIVE,
    // JSON platform logs; our own lines are JSON already (lib/log.ts). Lambda's own filter would drop
    // the metrics a request's info line carries (the release gates' 5xx and latency): it keeps every
    // line at DEBUG or INFO, and a quieter level is applied by lib/log.ts, which writes the metrics whatever the level.
    loggingFormat: LoggingFormat.JSON,
    applicationLogLevelV2: logLevel === 'DEBUG' ? ApplicationLogLevel.DEBUG : ApplicationLogLevel.INFO,
    systemLogLevelV2: SystemLogLevel.INFO,
    // Each release's version is kept when the next one replaces it, so that a rollback (CodeDeploy's,
    // or `aws lambda update-alias --function-version <n>` by hand) has the version to go back to.
    currentVersionOptions: { removalPolicy: RemovalPolicy.RETAIN },
  };
  const code = prebuiltFunctions ? prebuiltCode(prebuiltFunctions, entry, assets ?? []) : repositoryCode(scope, entry, assets ?? []);
  return new LambdaFunction(scope, id, { ...common, code, handler: `index.${exportName}` });
}

/**
 * In the repository, every handler module is bundled once per synth, by one esbuild run over all
 * of them (the SDK and our modules parsed once, not once a function: a synth's bundling took about
 * 150 ms a function, 65 of them), into the app's output directory; a function's code is its
 * module's bundle, with the files it reads copied beside it. A stack synthesized without bundling
 * (`aws:cdk:bundling-stacks`) gets its module's path instead, as NodejsFunction does.
 */
function repositoryCode(scope: Construct, entry: string, assets: readonly string[]): Code {
  const stack = Stack.of(scope);
  if (!stack.bundlingRequired) return Code.fromAsset(path.join(root, path.dirname(entry)));
  const bundles = bundledModules(Stage.of(scope)?.outdir ?? App.of(scope)?.outdir ?? path.join(root, 'cdk.out'));
  const bundle = path.join(bundles, prebuiltDirOf(entry));
  if (!assets.length) return Code.fromAsset(bundle);
  // A function with files of its own beside the bundle (the hooks' samples differ by stack): its own directory.
  const own = path.join(
    bundles,
    '.with-files',
    createHash('sha256')
      .update([entry, ...assets].join('\n'))
      .digest('hex')
      .slice(0, 16),
  );
  if (!existsSync(own)) {
    mkdirSync(own, { recursive: true });
    // The bundle and the clients it loads at first need.
    for (const file of readdirSync(bundle)) copyFileSync(path.join(bundle, file), path.join(own, file));
    for (const asset of assets) copyFileSync(path.join(root, asset), path.join(own, path.basename(asset)));
  }
  return Code.fromAsset(own);
}

/** The bundles of this synth's handler modules, by output directory: made at the first function, once. */
const bundledOutdirs = new Map<string, string>();
function bundledModules(outdir: string): string {
  const known = bundledOutdirs.get(outdir);
  if (known) return known;
  const dir = path.join(outdir, '.store-api-bundles');
  rmSync(dir, { recursive: true, force: true });
  // esbuild is the repository's (a devDependency): the packed library never reaches here, nor loads it.
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  const modules = handlerModules().map((module) => [prebuiltDirOf(module), path.join(root, module)] as const);
  esbuild.buildSync({ ...bundleAllOptions(modules, dir), logLevel: 'warning' });
  placeLazyClients(
    esbuild,
    modules.map(([name]) => path.join(dir, name)),
    path.join(dir, '.lazy-clients'),
  );
  bundledOutdirs.set(outdir, dir);
  return dir;
}

/** A prebuilt bundle as the function's code; one built without a file the function needs is an error that says so. */
function prebuiltCode(functions: string, entry: string, assets: readonly string[]): Code {
  const dir = path.join(functions, prebuiltDirOf(entry));
  for (const file of ['index.mjs', ...assets.map((asset) => path.basename(asset))]) {
    if (!existsSync(path.join(dir, file))) throw new Error(`store-api was packed without ${file} for ${entry} (${dir}): rebuild it with npm run build:infra`);
  }
  return Code.fromAsset(dir);
}
