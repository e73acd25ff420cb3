import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { present } from '../../lib/present.js';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { EventSourceMapping, FilterCriteria, StartingPosition, type Function as LambdaFunction, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { bundledFunction, type FunctionSettings } from './bundled-function.js';

/** The table's item actions a background job uses: it reads, and writes items one by one or in transactions. */
const JOB_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'];

export interface BackgroundJobProps {
  /** The store table, with its stream of new images. */
  readonly table: ITableV2;
  readonly logRetention: RetentionDays;
  readonly settings: FunctionSettings;
  /** Releases the function gradually, giving what its stream mapping and schedule invoke (its alias). */
  readonly release: (fn: LambdaFunction) => IFunction;
  /** The handler module (its export `handler`). */
  readonly entry: string;
  /** The function's construct id ('Placer', 'Worker'): its logical id, kept from one release to the next. */
  readonly functionId: string;
  /** The stream's records that wake it (lib/db/stream-filter.ts), and how many a run takes at most. */
  readonly wakeOn: { filter: Record<string, unknown>; batchSize: number };
  /** Where it may write: only items of these partitions (dynamodb:LeadingKeys); else anywhere in the table, its indexes read too. */
  readonly writesUnder?: readonly string[];
  /** What else the function needs (a key to open secrets with), given before it is released. */
  readonly prepare?: (fn: LambdaFunction) => void;
}

/**
 * A background job of the store (the change feed's placer, the webhooks' worker): a function woken
 * by the table's stream, filtered to the records it works on, and by a schedule every minute, one run
 * at a time (reserved concurrency 1), with the table's item actions it needs and its own logs.
 */
export class BackgroundJob extends Construct {
  readonly fn: LambdaFunction;
  readonly timeout = Duration.seconds(60);

  constructor(scope: Construct, id: string, props: BackgroundJobProps) {
    super(scope, id);
    const logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
    this.fn = bundledFunction(this, props.functionId, {
      ...props.settings,
      entry: props.entry,
      logGroup,
      environment: { STORE_TABLE_NAME: props.table.tableName },
      memorySize: 256,
      timeout: this.timeout,
      reservedConcurrentExecutions: 1,
    });
    this.fn.addToRolePolicy(
      props.writesUnder
        ? new PolicyStatement({ actions: JOB_ACTIONS, resources: [props.table.tableArn], conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...props.writesUnder] } } })
        : new PolicyStatement({ actions: JOB_ACTIONS, resources: [props.table.tableArn, `${props.table.tableArn}/index/*`] }),
    );
    props.prepare?.(this.fn);
    wakeUps(this, props.release(this.fn), props.table, props.wakeOn);
  }
}

/**
 * What wakes a background job of the store (the feed's placer, the webhooks' worker): the table's
 * stream, filtered to the records it works on, and a schedule every minute whatever the stream does.
 * A wake-up only starts a run, which reads the table itself: it is not retried (the next record, or
 * the schedule, wakes it again), and what was there before the mapping is found by the first run.
 */
function wakeUps(scope: Construct, target: IFunction, table: ITableV2, options: { filter: Record<string, unknown>; batchSize: number }): void {
  table.grantStreamRead(target);
  new EventSourceMapping(scope, 'FromStream', {
    target,
    eventSourceArn: present(table.tableStreamArn, "the table's stream (the table is made with one)"),
    startingPosition: StartingPosition.LATEST,
    filters: [FilterCriteria.filter(options.filter)],
    batchSize: options.batchSize,
    retryAttempts: 0,
  });
  new Rule(scope, 'EveryMinute', { schedule: Schedule.rate(Duration.minutes(1)), targets: [new LambdaTarget(target, { retryAttempts: 0 })] });
}
