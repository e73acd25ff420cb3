import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { EventSourceMapping, FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CHANGE_INSERTS } from '../../lib/events/stream-filter.js';
import { bundledFunction, type FunctionSettings } from './bundled-function.js';

export interface ChangeEventsProps {
  /** The store table, with its stream of new images. */
  readonly table: ITableV2;
  readonly logRetention: RetentionDays;
  readonly settings: FunctionSettings;
}

/**
 * Every change on an event bus (CONTRACT §12): the table's stream, filtered to inserted change
 * items, drives a function that puts one event per change. A record whose event is refused is
 * reported as a batch item failure and retried (the batch halved each time), for up to a day; what
 * still fails goes to a dead-letter queue, which an alarm watches (Monitoring). Nothing is dropped
 * silently.
 */
export class ChangeEvents extends Construct {
  readonly bus: EventBus;
  readonly publisher: NodejsFunction;
  readonly deadLetters: Queue;
  readonly timeout = Duration.seconds(60);

  constructor(scope: Construct, id: string, props: ChangeEventsProps) {
    super(scope, id);
    this.bus = new EventBus(this, 'Bus', { description: 'store-api: every committed change of the store (source store-api, detail-type <resource>.<type>)' });
    // What the stream's records could not be published after every retry: where to find them (shard, sequence numbers).
    this.deadLetters = new Queue(this, 'DeadLetters', { retentionPeriod: Duration.days(14), enforceSSL: true, encryption: QueueEncryption.SQS_MANAGED });
    const logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
    this.publisher = new NodejsFunction(this, 'Publisher', {
      ...bundledFunction({ ...props.settings, entry: 'functions/events/publish.ts', logGroup, environment: { STORE_EVENT_BUS_NAME: this.bus.eventBusName } }),
      memorySize: 256,
      timeout: this.timeout,
    });
    this.bus.grantPutEventsTo(this.publisher);
    props.table.grantStreamRead(this.publisher);
    new EventSourceMapping(this, 'FromStream', {
      target: this.publisher,
      eventSourceArn: props.table.tableStreamArn!,
      startingPosition: StartingPosition.TRIM_HORIZON,
      filters: [FilterCriteria.filter(CHANGE_INSERTS)],
      batchSize: 100,
      maxBatchingWindow: Duration.seconds(1),
      reportBatchItemFailures: true,
      bisectBatchOnError: true,
      retryAttempts: 20,
      // The stream keeps records 24 hours: retried until then, then dead letters.
      maxRecordAge: Duration.hours(24),
      onFailure: new SqsDlq(this.deadLetters),
    });
  }
}
