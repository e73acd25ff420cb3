import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { bundledFunction, type FunctionSettings } from './bundled-function.js';
import type { SealedSecretsKey } from './sealed-secrets-key.js';

export interface WebhookDeliveriesProps {
  readonly table: ITableV2;
  readonly logRetention: RetentionDays;
  readonly settings: FunctionSettings;
  /** The worker opens the subscriptions' secrets to sign deliveries. */
  readonly secretsKey: SealedSecretsKey;
}

/**
 * The webhooks' worker (CONTRACT §12): a function run every minute by a schedule, which dispatches
 * the feed's changes to the subscriptions and attempts what is due, in rounds, for most of its
 * minute. Runs never overlap: it may run at most one at a time (reserved concurrency 1), and each
 * ends before the next begins. It reads and writes only the store table, and opens the
 * subscriptions' sealed secrets.
 */
export class WebhookDeliveries extends Construct {
  readonly worker: NodejsFunction;
  readonly timeout = Duration.seconds(60);

  constructor(scope: Construct, id: string, props: WebhookDeliveriesProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
    this.worker = new NodejsFunction(this, 'Worker', {
      ...bundledFunction({ ...props.settings, entry: 'functions/webhooks/run.ts', logGroup, environment: { STORE_TABLE_NAME: props.table.tableName } }),
      memorySize: 256,
      timeout: this.timeout,
      reservedConcurrentExecutions: 1,
    });
    this.worker.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'],
        resources: [props.table.tableArn, `${props.table.tableArn}/index/*`],
      }),
    );
    props.secretsKey.letOpen(this.worker);
    new Rule(this, 'EveryMinute', { schedule: Schedule.rate(Duration.minutes(1)), targets: [new LambdaFunction(this.worker, { retryAttempts: 0 })] });
  }
}
