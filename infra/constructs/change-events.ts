import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { present } from '../../lib/present.js';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { EventSourceMapping, FilterCriteria, StartingPosition, type Function as LambdaFunction, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
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
  /** Releases the publisher gradually, giving what its stream mapping invokes (its alias). */
  readonly release: (fn: LambdaFunction) => IFunction;
}

/**
 * Every change on an event bus (docs/changes-events-webhooks.md): the table's stream, filtered to inserted change
 * items, drives a function that puts the changes' events, ten to a call. What EventBridge keeps
 * refusing goes, as the changes' keys, to a dead-letter queue an alarm watches (Monitoring), from
 * which `npm run events -- redrive` puts them again; a batch EventBridge takes none of fails the
 * invocation (the Errors alarm) and is retried by the stream for a day (lib/events/push.ts
 * RETRY_WINDOW_MS), then its keys go to the queue too; a batch the function cannot handle at all goes
 * there as the mapping's on-failure pointer. Nothing is dropped silently.
 */
export class ChangeEvents extends Construct {
  readonly bus: EventBus;
  readonly publisher: LambdaFunction;
  readonly deadLetters: Queue;
  readonly timeout = Duration.seconds(60);

  constructor(scope: Construct, id: string, props: ChangeEventsProps) {
    super(scope, id);
    this.bus = new EventBus(this, 'Bus', { description: 'store-api: every committed change of the store (source store-api, detail-type <resource>.<type>)' });
    // The keys of the changes whose events EventBridge kept refusing (lib/events/dead-letters.ts).
    this.deadLetters = new Queue(this, 'DeadLetters', { retentionPeriod: Duration.days(14), enforceSSL: true, encryption: QueueEncryption.SQS_MANAGED });
    const logGroup = new LogGroup(this, 'Logs', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
    this.publisher = bundledFunction(this, 'Publisher', {
      ...props.settings,
      entry: 'functions/events/publish.ts',
      logGroup,
      environment: { STORE_EVENT_BUS_NAME: this.bus.eventBusName, STORE_EVENTS_DEAD_LETTERS_URL: this.deadLetters.queueUrl },
      memorySize: 256,
      timeout: this.timeout,
    });
    this.bus.grantPutEventsTo(this.publisher);
    this.deadLetters.grantSendMessages(this.publisher);
    props.table.grantStreamRead(this.publisher);
    new EventSourceMapping(this, 'FromStream', {
      target: props.release(this.publisher),
      eventSourceArn: present(props.table.tableStreamArn, "the table's stream (the table is made with one)"),
      startingPosition: StartingPosition.TRIM_HORIZON,
      filters: [FilterCriteria.filter(CHANGE_INSERTS)],
      batchSize: 100,
      maxBatchingWindow: Duration.seconds(1),
      // A failed batch (EventBridge took none of it) is retried until the function gives its keys to
      // the queue, a day after its oldest write; the stream keeps records 24 hours. A batch that still
      // fails then (the function itself broken) is not dropped: the mapping sends its pointer to the
      // same queue, and `npm run events -- redrive` puts its changes again from the table.
      retryAttempts: 10_000,
      maxRecordAge: Duration.hours(24),
      onFailure: new SqsDlq(this.deadLetters),
    });
  }
}
