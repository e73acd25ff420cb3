import { CfnOutput, Stack, type Duration, type StackProps } from 'aws-cdk-lib';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { CorsHttpMethod, HttpApi, HttpMethod, HttpRoute, HttpRouteKey, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { routes } from '../lib/routes.js';
import { Monitoring } from './constructs/monitoring.js';
import { RouteFunction } from './constructs/route-function.js';
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
}

/** The construct id of a route's function (its logical ids start with it). */
export const constructId = (name: string) => name.split(/[/-]/).map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('');

/** The store API: the table, one function per route of the route table, and the HTTP API routing to them. */
export class StoreApiStack extends Stack {
  constructor(scope: Construct, id: string, props: StoreApiStackProps = {}) {
    super(scope, id, props);
    const { table } = new StoreTable(this, 'Store', { disposable: props.disposable ?? false });
    const logRetention = RetentionDays.ONE_MONTH;
    // The root of the server-side keys (lib/secrets.ts): generated once, resolved by CloudFormation at
    // deploy time into the functions' environment, so it is in no template and needs no runtime call.
    const serverSecret = new Secret(this, 'ServerSecret', {
      description: 'store-api: root of the keys that sign list cursors and fingerprint idempotent requests',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });

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

    const functions: Array<{ name: string; fn: NodejsFunction; timeout: Duration }> = [];
    for (const route of routes) {
      const id = constructId(route.name);
      const { function: fn, timeout } = new RouteFunction(this, id, {
        route,
        table,
        logRetention,
        logLevel: props.logLevel ?? 'INFO',
        environment: { STORE_SECRET: serverSecret.secretValue.unsafeUnwrap() },
      });
      functions.push({ name: route.name, fn, timeout });
      new HttpRoute(this, `${id}Route`, {
        httpApi: api,
        routeKey: route.method === 'ANY' ? HttpRouteKey.DEFAULT : HttpRouteKey.with(route.path, HttpMethod[route.method]),
        integration: new HttpLambdaIntegration(`${id}Integration`, fn),
      });
    }

    new Monitoring(this, 'Monitoring', { api, table, functions, alarmEmail: props.alarmEmail });

    new CfnOutput(this, 'ApiUrl', { value: api.apiEndpoint });
    new CfnOutput(this, 'TableName', { value: table.tableName });
  }
}
