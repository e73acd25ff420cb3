import { Duration } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, Dashboard, GraphWidget, MathExpression, Metric, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation, type ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../../lib/http/request-log.js';
import { WEBHOOKS_NAMESPACE } from '../../lib/webhooks/metrics.js';
import { CHANGES_NAMESPACE } from '../../lib/changes/placer.js';

export interface MonitoringProps {
  readonly api: IHttpApi;
  readonly table: ITableV2;
  readonly functions: ReadonlyArray<{ name: string; fn: LambdaFunction; timeout: Duration }>;
  /** The push of changes to the event bus: its stream consumer and dead-letter queue. */
  readonly changeEvents: { publisher: LambdaFunction; deadLetters: IQueue };
  /** Where alarms notify (an SNS topic with this email subscribed); none without it. */
  readonly alarmEmail?: string | undefined;
}

const FIVE_MINUTES = Duration.minutes(5);

/**
 * What an operator watches: alarms on the API's 5xx rate, each function's errors, throttles and
 * duration near its timeout, DynamoDB's throttled requests and system errors, and a spike of login
 * lock-outs (from the request log's metrics); and a dashboard of the same.
 */
export class Monitoring extends Construct {
  readonly alarms: Alarm[] = [];
  readonly topic: Topic | undefined;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.topic = props.alarmEmail ? new Topic(this, 'Alarms', { displayName: 'store-api alarms', enforceSSL: true }) : undefined;
    if (this.topic && props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));

    const alarm = (name: string, metric: IMetric, threshold: number, description: string) => {
      const created = new Alarm(this, name, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      if (this.topic) created.addAlarmAction(new SnsAction(this.topic));
      this.alarms.push(created);
      return created;
    };

    const serverErrorRate = new MathExpression({
      expression: '100 * errors / MAX([requests, 1])',
      usingMetrics: { errors: props.api.metricServerError({ period: FIVE_MINUTES }), requests: props.api.metricCount({ period: FIVE_MINUTES }) },
      label: 'API 5xx %',
      period: FIVE_MINUTES,
    });
    alarm('ApiServerErrors', serverErrorRate, 5, 'More than 5% of the API answers were 5xx over 5 minutes');

    for (const { name, fn, timeout } of props.functions) {
      alarm(`${name}Errors`, fn.metricErrors({ period: FIVE_MINUTES }), 1, `${name}: the function failed (not an HTTP error: an invocation error)`);
      alarm(`${name}Throttles`, fn.metricThrottles({ period: FIVE_MINUTES }), 1, `${name}: invocations were throttled`);
      alarm(`${name}NearTimeout`, fn.metricDuration({ period: FIVE_MINUTES, statistic: 'max' }), timeout.toMilliseconds() * 0.8, `${name}: a run took over 80% of its timeout`);
    }

    const operations = [Operation.GET_ITEM, Operation.BATCH_GET_ITEM, Operation.QUERY, Operation.PUT_ITEM, Operation.UPDATE_ITEM, Operation.DELETE_ITEM, Operation.TRANSACT_WRITE_ITEMS, Operation.TRANSACT_GET_ITEMS];
    alarm('TableThrottled', props.table.metricThrottledRequestsForOperations({ operations, period: FIVE_MINUTES }), 1, 'DynamoDB throttled requests of the store table');
    alarm('TableSystemErrors', props.table.metricSystemErrorsForOperations({ operations, period: FIVE_MINUTES }), 1, 'DynamoDB answered requests of the store table with system errors');

    // The push of changes: behind the stream by more than 5 minutes, or anything in the dead letters.
    const { publisher, deadLetters } = props.changeEvents;
    alarm('ChangeEventsIteratorAge', publisher.metric('IteratorAge', { statistic: 'max', period: FIVE_MINUTES }), 5 * 60 * 1000, 'The push of changes to EventBridge is more than 5 minutes behind the table\'s stream');
    alarm('ChangeEventsDeadLetters', deadLetters.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'max' }), 1, 'Changes could not be put on the event bus after a day of retries: see the dead-letter queue (the feed still has them)');

    // Webhooks: a subscription disabled (a 410, or three days of failures).
    const disabled = new Metric({ namespace: WEBHOOKS_NAMESPACE, metricName: 'Disabled', statistic: 'sum', period: FIVE_MINUTES });
    alarm('WebhookDisabled', disabled, 1, 'A webhook subscription was disabled (its receiver answered 410, or failed for three days): see GET /api/webhooks');

    // The change feed (CONTRACT §11): a change waiting for its placer over a minute; the webhooks'
    // dispatcher more than 5 minutes behind the feed, or a queue of due deliveries round after round.
    const changes = (metricName: string, statistic = 'max') => new Metric({ namespace: CHANGES_NAMESPACE, metricName, statistic, period: FIVE_MINUTES, label: metricName });
    const webhookRounds = (metricName: string, statistic = 'max') => new Metric({ namespace: WEBHOOKS_NAMESPACE, metricName, statistic, period: FIVE_MINUTES, label: metricName });
    alarm('ChangesOldestPending', changes('OldestPendingAge'), 60_000, 'A change waited more than a minute to be placed in the feed (GET /api/changes, webhooks): see the changes/place function');
    alarm('WebhooksDispatchLag', webhookRounds('DispatchLag'), 5 * 60_000, "The webhooks' dispatcher is more than 5 minutes behind the change feed");
    alarm('WebhooksDueQueue', webhookRounds('DueJobs', 'avg'), 20, 'Webhook deliveries are queuing: rounds kept finding a full load of due jobs for 5 minutes');

    const lockOuts = new Metric({ namespace: METRICS_NAMESPACE, metricName: 'LockOuts', dimensionsMap: { Route: 'customers/check-login' }, statistic: 'sum', period: FIVE_MINUTES });
    alarm('LoginLockOutSpike', lockOuts, 20, 'More than 20 login checks were refused for too many failures in 5 minutes: someone may be guessing passwords');

    const byRoute = (metricName: string, statistic = 'sum') =>
      props.functions.map(({ name }) => new Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { Route: name }, statistic, period: FIVE_MINUTES, label: name }));
    new Dashboard(this, 'Dashboard', {
      widgets: [
        [
          new GraphWidget({ title: 'Requests per route', left: byRoute('Requests'), width: 12 }),
          new GraphWidget({ title: 'API 5xx %', left: [serverErrorRate], width: 12 }),
        ],
        [
          new GraphWidget({ title: 'Latency per route (p99, ms)', left: byRoute('Latency', 'p99'), width: 12 }),
          new GraphWidget({ title: '4xx and 5xx per route', left: byRoute('Status4xx'), right: byRoute('Status5xx'), width: 12 }),
        ],
        [
          new GraphWidget({ title: 'Change feed: oldest pending and lag (max, ms)', left: [changes('OldestPendingAge'), changes('FeedLag')], right: [changes('Placed', 'sum')], width: 12 }),
          new GraphWidget({ title: "Webhooks: dispatcher's lag (max, ms), due jobs a round", left: [webhookRounds('DispatchLag')], right: [webhookRounds('DueJobs', 'avg')], width: 12 }),
        ],
        [
          new GraphWidget({ title: 'Login failures and lock-outs', left: byRoute('LoginFailures'), right: [lockOuts], width: 12 }),
          new GraphWidget({ title: 'Idempotent replays; DynamoDB throttles', left: byRoute('IdempotentReplays'), right: byRoute('DynamoDBThrottles'), width: 12 }),
        ],
      ],
    });
  }
}
