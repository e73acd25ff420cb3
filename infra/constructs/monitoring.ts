import { Duration } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, Dashboard, GraphWidget, MathExpression, Metric, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation, type ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../../lib/http/request-log.js';
import { WEBHOOKS_NAMESPACE } from '../../lib/webhooks/metrics.js';
import { CHANGES_NAMESPACE } from '../../lib/changes/placer.js';

const FIVE_MINUTES = Duration.minutes(5);
/** What a release watches: a minute at a time, so that a canary of five minutes sees several. */
const ONE_MINUTE = Duration.minutes(1);

/** A function as the alarms see it: its name in the route table (or its job's); its own timeout bounds its runs. */
export interface WatchedFunction {
  readonly name: string;
  readonly fn: LambdaFunction;
  /** The stage's name, as its functions tag their metrics (STORE_STAGE). */
  readonly stage: string;
}

/** The alias the release shifts (gradual-release.ts). */
const LIVE_ALIAS = 'live';
/** A release's 5xx rate past this, over a minute with at least MIN_REQUESTS answers of the new version, stops it. */
const SERVER_ERROR_PERCENT = 5;
const MIN_REQUESTS = 3;

/** Makes the alarms of a scope, each notifying `topic` when there is one. */
function alarmMaker(scope: Construct, topic: ITopic | undefined) {
  return (name: string, metric: IMetric, threshold: number, description: string): Alarm => {
    const created = new Alarm(scope, name, {
      metric,
      threshold,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    if (topic) created.addAlarmAction(new SnsAction(topic));
    return created;
  };
}

/**
 * A function's alarms: its invocation errors (each a minute, which a release also watches),
 * throttles, and a run near its timeout; for a route, also its 5xx answers and its p99 latency past
 * `latencyBoundMs` (from the request log's metrics), which a release watches too. What a release
 * watches is `release`.
 */
export function functionAlarms(scope: Construct, topic: ITopic | undefined, watched: WatchedFunction, route?: { latencyBoundMs: number }): { release: Alarm[] } {
  const alarm = alarmMaker(scope, topic);
  const { name, fn, stage } = watched;
  const timeout = fn.timeout ?? Duration.seconds(3);
  // What a release judges is the version it deploys, through the alias, alone: not the version it
  // replaces (the canary's other 90 %), nor another stage's traffic in the same account.
  const version = fn.currentVersion.version;
  const executed = new Metric({
    namespace: 'AWS/Lambda',
    metricName: 'Errors',
    dimensionsMap: { FunctionName: fn.functionName, Resource: `${fn.functionName}:${LIVE_ALIAS}`, ExecutedVersion: version },
    statistic: 'sum',
    period: ONE_MINUTE,
  });
  const errors = alarm(`${name}Errors`, executed, 1, `${name}: the version being released failed (an invocation error, not an HTTP one)`);
  alarm(`${name}Throttles`, fn.metricThrottles({ period: FIVE_MINUTES }), 1, `${name}: invocations were throttled`);
  alarm(`${name}NearTimeout`, fn.metricDuration({ period: FIVE_MINUTES, statistic: 'max' }), timeout.toMilliseconds() * 0.8, `${name}: a run took over 80% of its timeout`);
  if (!route) return { release: [errors] };
  const ofVersion = (metricName: string, statistic: string) =>
    new Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { Route: name, Stage: stage, Version: version }, statistic, period: ONE_MINUTE });
  // A rate, so that the canary's share of the traffic trips it as the whole would: a handled 500 is no Lambda error.
  const serverErrorRate = new MathExpression({
    expression: `IF(requests >= ${MIN_REQUESTS}, 100 * errors / requests, 0)`,
    usingMetrics: { errors: ofVersion('Status5xx', 'sum'), requests: ofVersion('Requests', 'sum') },
    period: ONE_MINUTE,
    label: `${name} 5xx %`,
  });
  const serverErrors = alarm(`${name}ServerErrors`, serverErrorRate, SERVER_ERROR_PERCENT, `${name}: ${SERVER_ERROR_PERCENT} % or more of the released version's answers in a minute were 5xx`);
  const latency = alarm(`${name}Latency`, ofVersion('Latency', 'p99'), route.latencyBoundMs, `${name}: the released version's p99 latency over ${route.latencyBoundMs} ms for a minute`);
  return { release: [errors, serverErrors, latency] };
}

export interface StoreMonitoringProps {
  readonly table: ITableV2;
  /** The push of changes to the event bus: its stream consumer and dead-letter queue. */
  readonly changeEvents: { publisher: LambdaFunction; deadLetters: IQueue };
  readonly topic: ITopic | undefined;
}

/**
 * What an operator watches of the store's data and background work: DynamoDB's throttled requests
 * and system errors, the push of changes (behind the stream, dead letters), webhooks disabled, the
 * change feed's placer and the webhooks' worker falling behind, and a spike of login lock-outs.
 */
export class StoreMonitoring extends Construct {
  constructor(scope: Construct, id: string, props: StoreMonitoringProps) {
    super(scope, id);
    const alarm = alarmMaker(this, props.topic);
    const operations = [
      Operation.GET_ITEM,
      Operation.BATCH_GET_ITEM,
      Operation.QUERY,
      Operation.PUT_ITEM,
      Operation.UPDATE_ITEM,
      Operation.DELETE_ITEM,
      Operation.TRANSACT_WRITE_ITEMS,
      Operation.TRANSACT_GET_ITEMS,
    ];
    alarm('TableThrottled', props.table.metricThrottledRequestsForOperations({ operations, period: FIVE_MINUTES }), 1, 'DynamoDB throttled requests of the store table');
    alarm('TableSystemErrors', props.table.metricSystemErrorsForOperations({ operations, period: FIVE_MINUTES }), 1, 'DynamoDB answered requests of the store table with system errors');

    // The push of changes: behind the stream by more than 5 minutes, or anything in the dead letters.
    const { publisher, deadLetters } = props.changeEvents;
    alarm(
      'ChangeEventsIteratorAge',
      publisher.metric('IteratorAge', { statistic: 'max', period: FIVE_MINUTES }),
      5 * 60 * 1000,
      "The push of changes to EventBridge is more than 5 minutes behind the table's stream",
    );
    alarm(
      'ChangeEventsDeadLetters',
      deadLetters.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'max' }),
      1,
      'Changes could not be put on the event bus after a day of retries: see the dead-letter queue (the feed still has them)',
    );

    // Webhooks: a subscription disabled (a 410, or three days of failures).
    const disabled = new Metric({ namespace: WEBHOOKS_NAMESPACE, metricName: 'Disabled', statistic: 'sum', period: FIVE_MINUTES });
    alarm('WebhookDisabled', disabled, 1, 'A webhook subscription was disabled (its receiver answered 410, or failed for three days): see GET /api/webhooks');

    // The change feed (docs/changes-events-webhooks.md): a change waiting for its placer over a minute; the webhooks'
    // dispatcher more than 5 minutes behind the feed, or a queue of due deliveries round after round.
    alarm('ChangesOldestPending', changeMetric('OldestPendingAge'), 60_000, 'A change waited more than a minute to be placed in the feed (GET /api/changes, webhooks): see the changes/place function');
    alarm('WebhooksDispatchLag', webhookMetric('DispatchLag'), 5 * 60_000, "The webhooks' dispatcher is more than 5 minutes behind the change feed");
    alarm('WebhooksDueQueue', webhookMetric('DueJobs', 'avg'), 20, 'Webhook deliveries are queuing: rounds kept finding a full load of due jobs for 5 minutes');
    alarm('LoginLockOutSpike', lockOuts, 20, 'More than 20 login checks were refused for too many failures in 5 minutes: someone may be guessing passwords');
  }
}

const changeMetric = (metricName: string, statistic = 'max') => new Metric({ namespace: CHANGES_NAMESPACE, metricName, statistic, period: FIVE_MINUTES, label: metricName });
const webhookMetric = (metricName: string, statistic = 'max') => new Metric({ namespace: WEBHOOKS_NAMESPACE, metricName, statistic, period: FIVE_MINUTES, label: metricName });
const lockOuts = new Metric({ namespace: METRICS_NAMESPACE, metricName: 'LockOuts', dimensionsMap: { Route: 'customers/check-login' }, statistic: 'sum', period: FIVE_MINUTES });

export interface ApiMonitoringProps {
  readonly api: IHttpApi;
  /** The routes' names, for the dashboard's per-route graphs. */
  readonly routes: readonly string[];
  readonly topic: ITopic | undefined;
}

/** The API's 5xx rate alarm, and a dashboard of the store: requests, errors and latency per route, the feed, webhooks, logins. */
export class ApiMonitoring extends Construct {
  constructor(scope: Construct, id: string, props: ApiMonitoringProps) {
    super(scope, id);
    const serverErrorRate = new MathExpression({
      expression: '100 * errors / MAX([requests, 1])',
      usingMetrics: { errors: props.api.metricServerError({ period: FIVE_MINUTES }), requests: props.api.metricCount({ period: FIVE_MINUTES }) },
      label: 'API 5xx %',
      period: FIVE_MINUTES,
    });
    alarmMaker(this, props.topic)('ApiServerErrors', serverErrorRate, 5, 'More than 5% of the API answers were 5xx over 5 minutes');

    const byRoute = (metricName: string, statistic = 'sum') =>
      props.routes.map((name) => new Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: { Route: name }, statistic, period: FIVE_MINUTES, label: name }));
    new Dashboard(this, 'Dashboard', {
      widgets: [
        [new GraphWidget({ title: 'Requests per route', left: byRoute('Requests'), width: 12 }), new GraphWidget({ title: 'API 5xx %', left: [serverErrorRate], width: 12 })],
        [
          new GraphWidget({ title: 'Latency per route (p99, ms)', left: byRoute('Latency', 'p99'), width: 12 }),
          new GraphWidget({ title: '4xx and 5xx per route', left: byRoute('Status4xx'), right: byRoute('Status5xx'), width: 12 }),
        ],
        [
          new GraphWidget({
            title: 'Change feed: oldest pending and lag (max, ms)',
            left: [changeMetric('OldestPendingAge'), changeMetric('FeedLag')],
            right: [changeMetric('Placed', 'sum')],
            width: 12,
          }),
          new GraphWidget({ title: "Webhooks: dispatcher's lag (max, ms), due jobs a round", left: [webhookMetric('DispatchLag')], right: [webhookMetric('DueJobs', 'avg')], width: 12 }),
        ],
        [
          new GraphWidget({ title: 'Login failures and lock-outs', left: byRoute('LoginFailures'), right: [lockOuts], width: 12 }),
          new GraphWidget({ title: 'Idempotent replays; DynamoDB throttles', left: byRoute('IdempotentReplays'), right: byRoute('DynamoDBThrottles'), width: 12 }),
        ],
      ],
    });
  }
}
