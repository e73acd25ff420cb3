import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RemovalPolicy } from 'aws-cdk-lib';
import { ApplicationLogLevel, Architecture, LoggingFormat, Runtime, SystemLogLevel, Tracing } from 'aws-cdk-lib/aws-lambda';
import { OutputFormat, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { FunctionArchitecture } from './function-facts.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * How every function is bundled (also the floor handler of `npm run bench`): minified ESM for
 * Node 24, with the AWS SDK bundled and tree-shaken from its ES modules, so that a cold start loads
 * one file instead of the runtime's SDK, module by module (the SDK team's advice for Lambda).
 */
export const BUNDLE = {
  target: 'node24',
  minify: true,
  mainFields: ['module', 'main'],
  // CommonJS dependencies bundled into ESM still call require().
  banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
} as const;

/** What every function of the stack is given alike, from the stack's context. */
export interface FunctionSettings {
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  readonly architecture: FunctionArchitecture;
  /**
   * How long changes are kept (CONTRACT §11): every function has it, whatever it writes, so that
   * changes and feed items all expire alike (the placer also notes it in the table for the tools).
   */
  readonly changeRetentionDays: number;
  /** The stage's name (the store's id): the dimension its metrics carry, so that a release judges its own stage's traffic. */
  readonly stage: string;
}

export interface BundledFunctionOptions extends FunctionSettings {
  /** The handler module, from the repository's root (its export `handler`). */
  readonly entry: string;
  readonly logGroup: ILogGroup;
  /** Files (from the repository's root) shipped beside the bundle, read when first needed. */
  readonly assets?: readonly string[] | undefined;
  /** The function's own environment (the retention is added to it). */
  readonly environment?: Record<string, string>;
}

/** What every function of the stack shares: runtime, CPU, tracing, JSON logs, the retention of changes, and the local esbuild's bundle. */
export function bundledFunction({ entry, logGroup, logLevel, architecture, assets, environment, changeRetentionDays, stage }: BundledFunctionOptions): NodejsFunctionProps {
  return {
    environment: { ...environment, STORE_CHANGE_RETENTION_DAYS: String(changeRetentionDays), STORE_STAGE: stage },
    entry: path.join(root, entry),
    handler: 'handler',
    projectRoot: root,
    depsLockFilePath: path.join(root, 'package-lock.json'),
    runtime: Runtime.NODEJS_24_X,
    architecture: architecture === 'x86_64' ? Architecture.X86_64 : Architecture.ARM_64,
    logGroup,
    // Traces of each invocation; no X-Ray SDK in the bundle (HTTP APIs have no tracing of their own).
    tracing: Tracing.ACTIVE,
    // JSON platform logs and level filtering; our own lines are JSON already (lib/log.ts).
    loggingFormat: LoggingFormat.JSON,
    applicationLogLevelV2: ApplicationLogLevel[logLevel],
    systemLogLevelV2: SystemLogLevel.INFO,
    // Each release's version is kept when the next one replaces it, so that a rollback (CodeDeploy's,
    // or `aws lambda update-alias --function-version <n>` by hand) has the version to go back to.
    currentVersionOptions: { removalPolicy: RemovalPolicy.RETAIN },
    bundling: {
      ...BUNDLE,
      mainFields: [...BUNDLE.mainFields],
      format: OutputFormat.ESM,
      // No source maps: --enable-source-maps cost ~20 ms of every cold start (npm run bench), and the
      // logs carry error names and messages, never stack traces, so there is nothing to map.
      sourceMap: false,
      forceDockerBundling: false,
      // The Secrets Manager, KMS and SQS clients are loaded on first need, once per container
      // (lib/secrets.ts, lib/sealed-secrets.ts, lib/events/dead-letters.ts), from the Lambda
      // runtime's own AWS SDK: no function parses them at init.
      // So are CodeDeploy's and Lambda's, which only the pre-traffic hook uses.
      externalModules: ['@aws-sdk/client-secrets-manager', '@aws-sdk/client-kms', '@aws-sdk/client-sqs', '@aws-sdk/client-codedeploy', '@aws-sdk/client-lambda'],
      ...(assets?.length
        ? {
            commandHooks: {
              beforeBundling: () => [],
              beforeInstall: () => [],
              afterBundling: (inputDir: string, outputDir: string) => assets.map((asset) => `cp "${path.join(inputDir, asset)}" "${outputDir}/"`),
            },
          }
        : {}),
    },
  };
}
