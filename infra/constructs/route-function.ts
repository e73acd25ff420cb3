import { type CfnResource, Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { handlerFile, type RouteDefinition } from '../../lib/routes.js';
import { ROUTE_METADATA } from './function-facts.js';
import { bundledFunction, type FunctionSettings } from './bundled-function.js';
import type { SealedSecretsKey } from './sealed-secrets-key.js';

export interface RouteFunctionProps {
  readonly route: RouteDefinition;
  readonly table: ITableV2;
  readonly logRetention: RetentionDays;
  /** The server secret, read by the routes that use it (only GetSecretValue, only on it). */
  readonly serverSecret?: ISecret;
  /** Opens API keys' secure keys (every protected route), and seals new secrets (`sealsSecrets`). */
  readonly secretsKey?: SealedSecretsKey;
  readonly settings: FunctionSettings;
  /** Its name, fixed, so that the API finds its alias by name rather than by an export of its stack. */
  readonly functionName?: string;
}

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

/** One route's Lambda: its handler module bundled (infra/constructs/bundled-function.ts), with only the table actions it needs. */
export class RouteFunction extends Construct {
  readonly function: LambdaFunction;
  /** Longer than a request's budget (10 s), so that a request always answers before it. */
  readonly timeout = Duration.seconds(15);

  constructor(scope: Construct, id: string, { route, table, logRetention, serverSecret, secretsKey, settings, functionName }: RouteFunctionProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', { retention: logRetention, removalPolicy: RemovalPolicy.DESTROY });
    this.function = bundledFunction(this, 'Function', {
      ...settings,
      entry: handlerFile(route),
      logGroup,
      assets: route.deployment.assets,
      environment: {
        STORE_TABLE_NAME: table.tableName,
        // Which route this is: the pre-traffic hook reads it to pick the sample it sends (lib/deploy/pre-traffic.ts).
        STORE_ROUTE: route.name,
        // Empty on AWS (the SDK's endpoint); declared so that `sam local` can point it at DynamoDB
        // Local: an --env-vars file only overrides variables the template declares.
        DYNAMODB_ENDPOINT: '',
        // Empty on AWS too: the secret is read from Secrets Manager (STORE_SECRET_ARN); declared so
        // that `sam local` and the artifact test may give it (there, sealed secrets are sealed
        // under it, not KMS: lib/sealed-secrets.ts).
        ...(route.permission ? { STORE_SECRET: '' } : {}),
        ...(route.deployment.usesServerSecret && serverSecret ? { STORE_SECRET_ARN: serverSecret.secretArn } : {}),
      },
      memorySize: route.deployment.memoryMb,
      timeout: this.timeout,
      ...(functionName ? { functionName } : {}),
    });
    // How tooling finds this route's function in the template (infra/function-ids.ts).
    (this.function.node.defaultChild as CfnResource).addMetadata(ROUTE_METADATA, route.name);
    if (secretsKey && route.deployment.sealsSecrets) secretsKey.letSeal(this.function);
    else if (secretsKey && route.permission) secretsKey.letOpen(this.function);
    if (route.deployment.usesServerSecret && serverSecret) {
      this.function.addToRolePolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [serverSecret.secretArn] }));
    }
    const resources = route.deployment.dynamodb.includes('Query') ? [table.tableArn, `${table.tableArn}/index/*`] : [table.tableArn];
    // A route whose writes are limited to some partitions (a read that may place the feed) writes nowhere else.
    const writesUnder = route.deployment.writesUnder;
    const limited = writesUnder ? route.deployment.dynamodb.filter((action) => WRITES.has(action)) : [];
    const free = route.deployment.dynamodb.filter((action) => !limited.includes(action));
    if (free.length > 0) this.function.addToRolePolicy(new PolicyStatement({ actions: free.map((action) => `dynamodb:${action}`), resources }));
    if (writesUnder && limited.length > 0) {
      this.function.addToRolePolicy(
        new PolicyStatement({
          actions: limited.map((action) => `dynamodb:${action}`),
          resources: [table.tableArn],
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...writesUnder] } },
        }),
      );
    }
  }
}
