import { CfnOutput, Stack, Validations, type Duration, type StackProps } from 'aws-cdk-lib';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { CorsHttpMethod, HttpApi, HttpMethod, HttpRoute, HttpRouteKey, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { routes } from '../lib/routes.js';
import type { FunctionArchitecture } from './context.js';
import { constructId } from './function-ids.js';
import { type FunctionSettings } from './constructs/bundled-function.js';
import { ChangeEvents } from './constructs/change-events.js';
import { ChangePlacer } from './constructs/change-placer.js';
import { Monitoring } from './constructs/monitoring.js';
import { WebhookDeliveries } from './constructs/webhook-deliveries.js';
import { RouteFunction } from './constructs/route-function.js';
import { SealedSecretsKey } from './constructs/sealed-secrets-key.js';
import { StoreTable } from './constructs/store-table.js';

export interface StoreApiStackProps extends StackProps {
  /** Dev stages: the table may be destroyed with the stack. */
  readonly disposable?: boolean;
  /** Origins allowed by CORS; CORS is off when empty. */
  readonly corsOrigins?: string[];
  /** Default stage throttling. */
  readonly throttle?: { rateLimit: number; burstLimit: number };
  /** The functions' application log level (Lambda's JSON log format filters on it). */
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /** Where alarms notify: an SNS topic with this email subscribed. */
  readonly alarmEmail?: string;
  /** How long changes are kept, in days (default 365): the TTL each write gives its change. */
  readonly changeRetentionDays?: number;
  /** The functions' CPU (default arm64; infra/context.ts). */
  readonly architecture?: FunctionArchitecture;
}

/**
 * What the AwsSolutions checks (cdk-nag, run on every synth by app.ts) find in this design on
 * purpose, each with why.
 */
function acknowledgeNagFindings(stack: Stack): void {
  const acknowledge = (id: string, reason: string) => Validations.of(stack).acknowledge({ id, reason });
  acknowledge(
    'AwsSolutions-APIG4',
    'Every protected route authenticates in its function: Thelia\'s Token key and the HMAC `sign` of the body, which an API Gateway authorizer cannot check (it never sees the body). The health check, the API reference and the catch-all are open on purpose (CONTRACT §3).',
  );
  acknowledge(
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    'The standard managed policy that lets a function write its own logs (CreateLogGroup, CreateLogStream, PutLogEvents); nothing else.',
  );
  acknowledge(
    'AwsSolutions-IAM5[Resource::<StoreTable0CCFA19B.Arn>/index/*]',
    "The routes that list may Query the store table's own indexes (GSI1-4), and nothing but the indexes of that one table.",
  );
  acknowledge('AwsSolutions-IAM5[Resource::*]', 'X-Ray active tracing: PutTraceSegments and PutTelemetryRecords take no resource but *.');
  acknowledge(
    'AwsSolutions-SQS3',
    "The change events' queue is itself the dead-letter queue: the stream mapping's on-failure destination, watched by an alarm.",
  );
  acknowledge(
    'AwsSolutions-SMG4',
    'Rotating the server secret invalidates the cursors and Idempotency-Key fingerprints handed out before (README: Operating it): it is rotated by hand, when wanted, not on a schedule.',
  );
}

/** The store API: the table, one function per route of the route table, and the HTTP API routing to them. */
export class StoreApiStack extends Stack {
  constructor(scope: Construct, id: string, props: StoreApiStackProps = {}) {
    super(scope, id, props);
    const { table } = new StoreTable(this, 'Store', { disposable: props.disposable ?? false });
    const logRetention = RetentionDays.ONE_MONTH;
    // The root of the server-side keys (lib/secrets.ts): generated once, and read at run time, when
    // first needed, by the functions that sign cursors or fingerprint requests; in no template and
    // no function's configuration.
    const serverSecret = new Secret(this, 'ServerSecret', {
      description: 'store-api: root of the keys that sign list cursors and fingerprint idempotent requests',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });

    // Wraps the data keys of API keys' secure keys and webhook secrets (lib/sealed-secrets.ts).
    const secretsKey = new SealedSecretsKey(this, 'SealedSecrets', { disposable: props.disposable ?? false });

    const api = new HttpApi(this, 'Api', {
      createDefaultStage: false,
      ...(props.corsOrigins?.length
        ? { corsPreflight: { allowOrigins: props.corsOrigins, allowMethods: [CorsHttpMethod.ANY], allowHeaders: ['authorization', 'content-type', 'if-match', 'idempotency-key'] } }
        : {}),
    });
    new HttpStage(this, 'DefaultStage', {
      httpApi: api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 100, burstLimit: 200 },
      accessLogSettings: { destination: new LogGroupLogDestination(new LogGroup(this, 'AccessLogs', { retention: logRetention })) },
    });

    const settings: FunctionSettings = {
      logLevel: props.logLevel ?? 'INFO',
      architecture: props.architecture ?? 'arm64',
      changeRetentionDays: props.changeRetentionDays ?? 365,
    };
    const functions: Array<{ name: string; fn: NodejsFunction; timeout: Duration }> = [];
    for (const route of routes) {
      const id = constructId(route.name);
      const { function: fn, timeout } = new RouteFunction(this, id, {
        route,
        table,
        logRetention,
        settings,
        serverSecret,
        secretsKey,
      });
      functions.push({ name: route.name, fn, timeout });
      const integration = new HttpLambdaIntegration(`${id}Integration`, fn);
      new HttpRoute(this, `${id}Route`, {
        httpApi: api,
        routeKey: route.method === 'ANY' ? HttpRouteKey.DEFAULT : HttpRouteKey.with(route.path, HttpMethod[route.method]),
        integration,
      });
      // HEAD answers what GET would, without the body (lib/http/head.ts), from the same function.
      if (route.method === 'GET') new HttpRoute(this, `${id}HeadRoute`, { httpApi: api, routeKey: HttpRouteKey.with(route.path, HttpMethod.HEAD), integration });
    }

    const events = new ChangeEvents(this, 'ChangeEvents', { table, logRetention, settings });
    functions.push({ name: 'events/publish', fn: events.publisher, timeout: events.timeout });
    const placer = new ChangePlacer(this, 'Changes', { table, logRetention, settings });
    functions.push({ name: 'changes/place', fn: placer.placer, timeout: placer.timeout });
    const webhookDeliveries = new WebhookDeliveries(this, 'Webhooks', { table, logRetention, settings, secretsKey });
    functions.push({ name: 'webhooks/run', fn: webhookDeliveries.worker, timeout: webhookDeliveries.timeout });

    new Monitoring(this, 'Monitoring', { api, table, functions, changeEvents: events, alarmEmail: props.alarmEmail });
    acknowledgeNagFindings(this);

    new CfnOutput(this, 'ApiUrl', { value: api.apiEndpoint });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'EventBusName', { value: events.bus.eventBusName });
    // What `npm run events -- redrive` reads.
    new CfnOutput(this, 'EventsDeadLettersUrl', { value: events.deadLetters.queueUrl });
    // What `npm run api-key` needs on AWS to seal the secure keys it makes.
    new CfnOutput(this, 'SecretsKeyArn', { value: secretsKey.key.keyArn });
  }
}
