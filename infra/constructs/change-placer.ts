import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { PENDING_INSERTS } from '../../lib/changes/placer.js';
import { FEED_PARTITIONS } from '../../lib/routes.js';
import { bundledFunction, type FunctionSettings } from './bundled-function.js';
import { wakeUps } from './wake-ups.js';

export interface ChangePlacerProps {
  /** The store table, with its stream of new images. */
  readonly table: ITableV2;
  readonly logRetention: RetentionDays;
  readonly settings: FunctionSettings;
  /** Releases the function gradually, giving what its stream mapping and schedule invoke (its alias). */
  readonly release: (fn: NodejsFunction) => IFunction;
}

/**
 * The change feed's placer (CONTRACT §11): the table's stream, filtered to inserted markers of
 * pending changes, runs it within a second of a write, and a schedule every minute runs it whatever
 * the stream does. One runs at a time (reserved concurrency 1, and its lease in the table). It may
 * write only the feed's partitions (dynamodb:LeadingKeys): nothing else of the store.
 */
export class ChangePlacer extends Construct {
  readonly placer: NodejsFunction;
  readonly timeout = Duration.seconds(60);

  constructor(scope: Construct, id: string, props: ChangePlacerProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
    this.placer = new NodejsFunction(this, 'Placer', {
      ...bundledFunction({ ...props.settings, entry: 'functions/changes/place.ts', logGroup, environment: { STORE_TABLE_NAME: props.table.tableName } }),
      memorySize: 256,
      timeout: this.timeout,
      reservedConcurrentExecutions: 1,
    });
    this.placer.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'],
        resources: [props.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...FEED_PARTITIONS] } },
      }),
    );
    wakeUps(this, props.release(this.placer), props.table, { filter: PENDING_INSERTS, batchSize: 1000 });
  }
}
