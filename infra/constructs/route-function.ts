import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { handlerFile, type RouteDefinition } from '../../lib/routes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface RouteFunctionProps {
  readonly route: RouteDefinition;
  readonly table: ITableV2;
  readonly logRetention: RetentionDays;
  readonly environment?: Record<string, string>;
}

/** One route's Lambda: its handler module bundled by the local esbuild, with only the table actions it needs. */
export class RouteFunction extends Construct {
  readonly function: NodejsFunction;

  constructor(scope: Construct, id: string, { route, table, logRetention, environment }: RouteFunctionProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', { retention: logRetention, removalPolicy: RemovalPolicy.DESTROY });
    this.function = new NodejsFunction(this, 'Function', {
      entry: path.join(root, handlerFile(route)),
      handler: 'handler',
      projectRoot: root,
      depsLockFilePath: path.join(root, 'package-lock.json'),
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: route.memoryMb,
      timeout: Duration.seconds(15),
      logGroup,
      environment: { STORE_TABLE_NAME: table.tableName, NODE_OPTIONS: '--enable-source-maps', ...environment },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node24',
        minify: true,
        sourceMap: true,
        forceDockerBundling: false,
        // CommonJS dependencies bundled into ESM still call require().
        banner: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
    });
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
