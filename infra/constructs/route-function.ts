import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CfnResource, Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { ApplicationLogLevel, Architecture, LoggingFormat, Runtime, SystemLogLevel, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { handlerFile, type RouteDefinition } from '../../lib/routes.js';
import type { FunctionArchitecture } from '../context.js';
import { ROUTE_METADATA } from '../function-ids.js';

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

export interface RouteFunctionProps {
  readonly route: RouteDefinition;
  readonly table: ITableV2;
  readonly logRetention: RetentionDays;
  /** The server secret, read by the routes that use it (only GetSecretValue, only on it). */
  readonly serverSecret?: ISecret;
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  readonly architecture: FunctionArchitecture;
  /** How long the changes this route's writes record are kept. */
  readonly changeRetentionDays: number;
}

/** One route's Lambda: its handler module bundled by the local esbuild, with only the table actions it needs. */
export class RouteFunction extends Construct {
  readonly function: NodejsFunction;
  /** Longer than a request's budget (10 s), so that a request always answers before it. */
  readonly timeout = Duration.seconds(15);

  constructor(scope: Construct, id: string, { route, table, logRetention, serverSecret, logLevel, architecture, changeRetentionDays }: RouteFunctionProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', { retention: logRetention, removalPolicy: RemovalPolicy.DESTROY });
    this.function = new NodejsFunction(this, 'Function', {
      entry: path.join(root, handlerFile(route)),
      handler: 'handler',
      projectRoot: root,
      depsLockFilePath: path.join(root, 'package-lock.json'),
      runtime: Runtime.NODEJS_24_X,
      architecture: architecture === 'x86_64' ? Architecture.X86_64 : Architecture.ARM_64,
      memorySize: route.memoryMb,
      timeout: this.timeout,
      logGroup,
      // Traces of each invocation; no X-Ray SDK in the bundle (HTTP APIs have no tracing of their own).
      tracing: Tracing.ACTIVE,
      // JSON platform logs and level filtering; our own lines are JSON already (lib/log.ts).
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel[logLevel],
      systemLogLevelV2: SystemLogLevel.INFO,
      environment: {
        STORE_TABLE_NAME: table.tableName,
        // Empty on AWS (the SDK's endpoint); declared so that `sam local` can point it at DynamoDB
        // Local: an --env-vars file only overrides variables the template declares.
        DYNAMODB_ENDPOINT: '',
        // Empty on AWS too: the secret is read from Secrets Manager (STORE_SECRET_ARN); declared so
        // that `sam local` and the artifact test may give it.
        ...(route.usesServerSecret && serverSecret ? { STORE_SECRET: '', STORE_SECRET_ARN: serverSecret.secretArn } : {}),
        // Routes that write record changes (and the feed, which places them) give them their TTL.
        ...(route.dynamodb.includes('PutItem') ? { STORE_CHANGE_RETENTION_DAYS: String(changeRetentionDays) } : {}),
      },
      bundling: {
        ...BUNDLE,
        mainFields: [...BUNDLE.mainFields],
        format: OutputFormat.ESM,
        // No source maps: --enable-source-maps cost ~20 ms of every cold start (npm run bench), and the
        // logs carry error names and messages, never stack traces, so there is nothing to map.
        sourceMap: false,
        forceDockerBundling: false,
        // The Secrets Manager client is loaded on first need, once per container (lib/secrets.ts),
        // from the Lambda runtime's own AWS SDK: no function parses it at init.
        externalModules: ['@aws-sdk/client-secrets-manager'],
        // Files the function reads when first needed, beside its bundle (the API reference's page).
        ...(route.assets?.length
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (inputDir: string, outputDir: string) => route.assets!.map((asset) => `cp "${path.join(inputDir, asset)}" "${outputDir}/"`),
              },
            }
          : {}),
      },
    });
    // How tooling finds this route's function in the template (infra/function-ids.ts).
    (this.function.node.defaultChild as CfnResource).addMetadata(ROUTE_METADATA, route.name);
    if (route.usesServerSecret && serverSecret) {
      this.function.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [serverSecret.secretArn] }));
    }
    if (route.dynamodb.length > 0) {
      this.function.addToRolePolicy(
        new PolicyStatement({
          actions: route.dynamodb.map((action) => `dynamodb:${action}`),
          resources: route.dynamodb.includes('Query') ? [table.tableArn, `${table.tableArn}/index/*`] : [table.tableArn],
        }),
      );
    }
  }
}
