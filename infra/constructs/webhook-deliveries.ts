import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { PLACED_INSERTS } from '../../lib/changes/placer.js';
import { bundledFunction, type FunctionSettings } from './bundled-function.js';
import { wakeUps } from './wake-ups.js';
import type { SealedSecretsKey } from './sealed-secrets-key.js';

export interface WebhookDeliveriesProps {
  readonly table: ITableV2;
  readonly logRetention: RetentionDays;
  readonly settings: FunctionSettings;
  /** Releases the function gradually, giving what its stream mapping and schedule invoke (its alias). */
  readonly release: (fn: NodejsFunction) => IFunction;
  /** The worker opens the subscriptions' secrets to sign deliveries. */
  readonly secretsKey: SealedSecretsKey;
}

/**
 * The webhooks' worker (CONTRACT §12): a function woken by the table's stream when the placer
 * places changes in the feed, and run every minute by a schedule (retries), which works each
 * subscription's lane while there is work. Runs never overlap: it may run at most one at a time (reserved concurrency 1), and each
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
    // Woken by what the placer places, within seconds of a write, and every minute for the retries
    // (a wake-up refused while a run was at work is taken by that run's next tick).
    wakeUps(this, props.release(this.worker), props.table, { filter: PLACED_INSERTS, batchSize: 100 });
  }
}
