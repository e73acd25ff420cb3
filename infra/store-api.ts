/**
 * The whole store as one construct (docs/deploying.md): `StoreApi`, stacks that deploy in order, each
 * well within CloudFormation's 500 resources:
 *   <name>          the data and the background: the table (where it always was: its logical id and
 *                   this stack's name are those of earlier releases, so a deploy keeps it and its
 *                   data), the server secret, the KMS key of sealed secrets, the event bus and its
 *                   dead letters, the feed's placer, the webhooks' worker, the alarm topic, and the
 *                   migrations, run before anything of a release takes traffic;
 *   <name>-Routes   one function per route, each released gradually behind its `live` alias, the
 *                   pre-traffic hook, and the routes' alarms; a group of resources that names a
 *                   stack of its own (lib/resources.ts) has the same in <name>-<group>Routes;
 *   <name>-Api      the HTTP API, whose integrations invoke the aliases, and the dashboard.
 * Put it in an App or a Stage (StoreApiStage), never in a Stack: it makes its own.
 */
import { present } from '../lib/present.js';
import { ArnFormat, CfnOutput, CustomResource, Duration, Fn, RemovalPolicy, Stack, STACK_RESOURCE_LIMIT_CONTEXT, type Environment } from 'aws-cdk-lib';
import { CorsHttpMethod, HttpApi, HttpMethod, HttpRoute, HttpRouteKey, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LambdaApplication } from 'aws-cdk-lib/aws-codedeploy';
import { TableV2, type ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { AccountPrincipal, ManagedPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Function as LambdaFunction, type Alias } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { createHash } from 'node:crypto';
import { MIGRATIONS } from '../lib/migrations/steps.js';
import { PENDING_INSERTS, PLACED_INSERTS } from '../lib/changes/placer.js';
import { registry } from '../lib/resources.js';
import { FEED_PARTITIONS, routes, type RouteDefinition } from '../lib/routes.js';
import type { FunctionArchitecture } from './constructs/function-facts.js';
import { constructId } from './function-ids.js';
import { PRE_TRAFFIC_HOOK, preTrafficAssets } from './function-assets.js';
import { STAGE_KEY_SECRET, type StageKeyName } from '../lib/deploy/stage-keys.js';
import { bundledFunction, type FunctionSettings } from './constructs/bundled-function.js';
import { ChangeEvents } from './constructs/change-events.js';
import { BackgroundJob } from './constructs/background-job.js';
import { LIVE, releaseGradually, type Deployment } from './constructs/gradual-release.js';
import { ApiMonitoring, functionAlarms, StoreMonitoring } from './constructs/monitoring.js';
import { acknowledgeNagFindings } from './nag-findings.js';
import { RouteFunction } from './constructs/route-function.js';
import { SealedSecretsKey } from './constructs/sealed-secrets-key.js';
import { StoreTable } from './constructs/store-table.js';
import { collectionNameOf, SearchCollection } from './constructs/search-collection.js';

/** Everything `-c` sets on the app (infra/context.ts), as typed props; each default in one place. */
export interface StoreApiProps {
  /**
   * A throwaway stage: its table, KMS key and server secret are destroyed with it, and its
   * releases shift all at once.
   * @default false: all three are retained, the table with point-in-time recovery and deletion protection
   */
  readonly disposable?: boolean;
  /**
   * How a release shifts each function's alias to its new version.
   * @default 'canary' (10 % for 5 minutes), or 'all-at-once' on a disposable stage
   */
  readonly deployment?: Deployment;
  /**
   * Origins allowed by CORS.
   * @default none: CORS is off
   */
  readonly corsOrigins?: string[];
  /**
   * The HTTP API stage's throttle, one budget for all callers together.
   * @default { rateLimit: 100, burstLimit: 200 }
   */
  readonly throttle?: { rateLimit: number; burstLimit: number };
  /**
   * The functions' application log level.
   * @default 'INFO'
   */
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /**
   * Where alarms notify: an SNS topic with this email subscribed.
   * @default none: alarms only show in CloudWatch
   */
  readonly alarmEmail?: string;
  /**
   * How long changes are kept, in days (docs/changes-events-webhooks.md).
   * @default 365
   */
  readonly changeRetentionDays?: number;
  /**
   * The search index of the lists that no key of the table serves (docs/lists.md): an OpenSearch
   * Serverless collection, its indexer on the change feed, and the list functions reading it. It
   * bills a floor of OCUs whether used or not (docs/deploying.md).
   * @default none: such a list is a 400 that names `-c search=opensearch`
   */
  readonly search?: 'opensearch';
  /**
   * A key for `npm run smoke` (it makes, reads and deletes a tax rule), made by the stage itself
   * and kept in a secret of its own (the `SmokeKeySecretArn` output): a pipeline's smoke check then
   * works from the stage's first deploy, on a table it has just made.
   * @default false: no smoke key
   */
  readonly smokeKey?: boolean;
  /**
   * Other accounts that may read the smoke key's secret: a pipeline's own account, when the stage
   * is in another. The secret is then sealed with a KMS key of the stage (Secrets Manager's own key
   * cannot be shared), which those accounts may use through Secrets Manager only.
   * @default none: only the stage's account
   */
  readonly smokeKeyReaders?: readonly string[];
  /**
   * The functions' CPU.
   * @default 'arm64'
   */
  readonly architecture?: FunctionArchitecture;
  /**
   * Everything in one stack, for local tools that read one template (SAM CLI: `npm run sam`, whose
   * `start-api` serves the API of the template it is given). Never for a deploy: one stack would
   * pass CloudFormation's 500 resources.
   * @default false: three stacks
   */
  readonly singleStack?: boolean;
  /**
   * The account and region of the three stacks.
   * @default environment-agnostic (the CLI's), or the Stage's
   */
  readonly env?: Environment;
}

/** A route's p99 latency past this stops its release: a request's budget is 10 s, and a healthy route answers in well under a second. */
const RELEASE_LATENCY_BOUND_MS = 3_000;

/** The store: its three stacks, and what users wire to. */
export class StoreApi extends Construct {
  /** The stack of the table and the background jobs (named as the construct). */
  readonly dataStack: Stack;
  /** The first routes stack (`<name>-Routes`). */
  readonly routesStack: Stack;
  /** Every routes stack, one per group of resources (resources.ts `stack`); none in one stack. */
  readonly routesStacks: Stack[];
  readonly apiStack: Stack;
  readonly table: ITableV2;
  readonly bus: IEventBus;
  readonly api: HttpApi;
  /** The API's base URL (the `ApiUrl` output of the Api stack). */
  readonly url: string;
  readonly apiUrlOutput: CfnOutput;
  /** The secret of the stage's smoke key (`smokeKey`): 73 hex characters, the API key then its secure key. */
  readonly smokeKeySecretOutput?: CfnOutput;

  constructor(scope: Construct, id: string, props: StoreApiProps = {}) {
    super(scope, id);
    const single = props.singleStack ?? false;
    // One stack for SAM CLI holds more than a deployable stack may; it is never deployed.
    if (single) this.node.setContext(STACK_RESOURCE_LIMIT_CONTEXT, 0);
    const disposable = props.disposable ?? false;
    const deployment = props.deployment ?? (disposable ? 'all-at-once' : 'canary');
    const settings: FunctionSettings = { logLevel: props.logLevel ?? 'INFO', architecture: props.architecture ?? 'arm64', changeRetentionDays: props.changeRetentionDays ?? 365, stage: id };
    const logRetention = RetentionDays.ONE_MONTH;
    const env = props.env ? { env: props.env } : {};

    // ---- the data and the background jobs
    // A kept stage (prod) cannot be deleted by a stray `cdk destroy`: its stacks are protected (docs/deploying.md: Deleting a stage).
    const protection = { terminationProtection: !disposable && !single };
    const data = (this.dataStack = new Stack(this, 'Data', { stackName: id, ...env, ...protection, description: 'store-api: the table, its secrets, events and background jobs' }));
    const { table } = new StoreTable(data, 'Store', { disposable });
    this.table = table;
    // The root of the server-side keys (lib/secrets.ts): generated once, read at run time by the
    // functions that sign cursors or fingerprint requests; kept with the table it seals.
    const serverSecret = new Secret(data, 'ServerSecret', {
      description: 'store-api: root of the keys that sign list cursors and fingerprint idempotent requests',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
      removalPolicy: disposable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
    const secretsKey = new SealedSecretsKey(data, 'SealedSecrets', { disposable });
    // The stage's own keys (lib/deploy/stage-keys.ts), generated by CloudFormation, put in the table by the migrations.
    const stageKey = (id: string, description: string, encryptionKey?: Key) =>
      new Secret(data, id, { description, generateSecretString: { ...STAGE_KEY_SECRET }, removalPolicy: RemovalPolicy.DESTROY, ...(encryptionKey ? { encryptionKey } : {}) });
    const releaseCheckKey = stageKey('ReleaseCheckKey', "store-api: the pre-traffic hook's API key (views every resource, changes none)");
    const smokeKeyReaders = props.smokeKeyReaders ?? [];
    const smokeKey = props.smokeKey
      ? stageKey(
          'SmokeKey',
          "store-api: npm run smoke's API key (makes, reads and deletes a tax rule)",
          smokeKeyReaders.length
            ? new Key(data, 'SmokeKeyKey', { description: "store-api: seals the smoke key's secret, for the accounts that read it", enableKeyRotation: true, removalPolicy: RemovalPolicy.DESTROY })
            : undefined,
        )
      : undefined;
    for (const account of smokeKeyReaders) smokeKey?.grantRead(new AccountPrincipal(account));
    const topic = props.alarmEmail ? new Topic(data, 'Alarms', { displayName: 'store-api alarms', enforceSSL: true }) : undefined;
    if (topic && props.alarmEmail) topic.addSubscription(new EmailSubscription(props.alarmEmail));

    // Migrations first: every alias of the release depends on them (the routes' stack depends on this one).
    // Behind the Provider framework: onEvent answers at once, isComplete runs the steps while its
    // invocation has time and is called again every 10 s until they are done. Three bounds, each within
    // the next: the run's own deadline, 50 minutes from its first call (lib/deploy/migrations-resource.ts,
    // which then fails it, saying so), the framework's 55, CloudFormation's hour (ServiceTimeout).
    const migrationFunction = (functionId: string, exportName: string) => {
      const fn = bundledFunction(data, functionId, {
        ...settings,
        entry: 'functions/deploy/migrate.ts',
        exportName,
        logGroup: new LogGroup(data, `${functionId}Logs`, { retention: logRetention, removalPolicy: RemovalPolicy.DESTROY }),
        environment: { STORE_TABLE_NAME: table.tableName },
        memorySize: 512,
        timeout: Duration.minutes(15),
      });
      table.grantReadWriteData(fn);
      secretsKey.letSeal(fn);
      for (const secret of [releaseCheckKey, smokeKey]) secret?.grantRead(fn);
      return fn;
    };
    const migrationsProvider = new Provider(data, 'MigrationsProvider', {
      onEventHandler: migrationFunction('Migrations', 'handler'),
      isCompleteHandler: migrationFunction('MigrationsRun', 'isComplete'),
      queryInterval: Duration.seconds(10),
      totalTimeout: Duration.minutes(55),
      logGroup: new LogGroup(data, 'MigrationsProviderLogs', { retention: logRetention, removalPolicy: RemovalPolicy.DESTROY }),
    });
    const migrations = new CustomResource(data, 'TableMigrations', {
      serviceToken: migrationsProvider.serviceToken,
      serviceTimeout: Duration.hours(1),
      resourceType: 'Custom::StoreMigrations',
      // A release that adds a step changes this, so that CloudFormation runs the resource again;
      // a rollback's Update names the steps of the release it goes back to (lib/deploy/migrations-resource.ts).
      // It then makes sure the stage's keys are in the table, from their secrets.
      properties: {
        Steps: MIGRATIONS.map((step) => step.id).join(','),
        StageKeys: { releaseCheck: releaseCheckKey.secretArn, ...(smokeKey ? { smoke: smokeKey.secretArn } : {}) } satisfies Partial<Record<StageKeyName, string>>,
      },
    });

    const background = codeDeployOf(data);
    const releaseBackground = (name: string) => (fn: LambdaFunction) =>
      releaseGradually(fn, { ...background, deployment, alarms: functionAlarms(data, topic, { name, fn, stage: id }).release, after: [migrations] });
    const events = new ChangeEvents(data, 'ChangeEvents', { table, logRetention, settings, release: releaseBackground('events/publish') });
    this.bus = events.bus;
    // The change feed's placer (docs/changes-events-webhooks.md), woken within a second of a write by the inserted markers
    // of pending changes; it may write only the feed's partitions.
    new BackgroundJob(data, 'Changes', {
      table,
      logRetention,
      settings,
      release: releaseBackground('changes/place'),
      entry: 'functions/changes/place.ts',
      functionId: 'Placer',
      wakeOn: { filter: PENDING_INSERTS, batchSize: 1000 },
      writesUnder: FEED_PARTITIONS,
    });
    // The webhooks' worker (docs/changes-events-webhooks.md), woken by what the placer places; it opens the subscriptions' secrets to sign.
    new BackgroundJob(data, 'Webhooks', {
      table,
      logRetention,
      settings,
      release: releaseBackground('webhooks/run'),
      entry: 'functions/webhooks/run.ts',
      functionId: 'Worker',
      wakeOn: { filter: PLACED_INSERTS, batchSize: 100 },
      prepare: (fn) => secretsKey.letOpen(fn),
    });
    // The search index (docs/lists.md), fed from the feed as the webhooks' worker is, woken by the same placed items.
    const search = props.search === 'opensearch' ? new SearchCollection(data, 'Search', { name: collectionNameOf(id), disposable }) : undefined;
    if (search) {
      new BackgroundJob(data, 'SearchIndex', {
        table,
        logRetention,
        settings,
        release: releaseBackground('search/run'),
        entry: 'functions/search/run.ts',
        functionId: 'Indexer',
        wakeOn: { filter: PLACED_INSERTS, batchSize: 100 },
        prepare: (fn) => search.allow(data, [fn], 'write', 'W'),
      });
      new CfnOutput(data, 'SearchEndpoint', { value: search.endpoint });
    }
    new StoreMonitoring(data, 'Monitoring', { table, changeEvents: events, topic });
    if (!single) acknowledgeNagFindings(data, { releases: background.application, migrations: migrationsProvider });
    new CfnOutput(data, 'TableName', { value: table.tableName });
    new CfnOutput(data, 'EventBusName', { value: events.bus.eventBusName });
    // What `npm run events -- redrive` reads.
    new CfnOutput(data, 'EventsDeadLettersUrl', { value: events.deadLetters.queueUrl });
    // What `npm run api-key` needs on AWS to seal the secure keys it makes.
    new CfnOutput(data, 'SecretsKeyArn', { value: secretsKey.key.keyArn });
    // What a pipeline's smoke step reads its key from.
    if (smokeKey) this.smokeKeySecretOutput = new CfnOutput(data, 'SmokeKeySecretArn', { value: smokeKey.secretArn });

    // ---- one function per route, released gradually, in one routes stack per group of resources
    // The table as the routes stacks import it, by an export of a fixed name (the checks' acknowledgement names it).
    const tableArnExport = `${id}-TableArn`;
    new CfnOutput(data, 'TableArn', { value: table.tableArn, ...(single ? {} : { exportName: tableArnExport }) });
    const aliases = new Map<string, Alias>();
    const hooks: Array<{ hook: LambdaFunction; checked: LambdaFunction[] }> = [];
    this.routesStacks = [];
    for (const [groupIndex, [group, groupRoutes]] of [...routeGroups()].entries()) {
      // The first group keeps the ids of the release that had only it.
      const prefix = group === FIRST_ROUTES_GROUP ? '' : group;
      const routesStack = single
        ? data
        : new Stack(this, `${group}Routes`, {
            stackName: `${id}-${group === FIRST_ROUTES_GROUP ? '' : group}Routes`,
            ...env,
            ...protection,
            description: 'store-api: one function per route, released gradually',
          });
      if (!single) {
        routesStack.addStackDependency(data);
        this.routesStacks.push(routesStack);
      }
      const hook = bundledFunction(routesStack, `${prefix}PreTraffic`, {
        ...settings,
        entry: PRE_TRAFFIC_HOOK,
        logGroup: new LogGroup(routesStack, `${prefix}PreTrafficLogs`, { retention: logRetention, removalPolicy: RemovalPolicy.DESTROY }),
        assets: preTrafficAssets(groupRoutes),
        environment: { STORE_RELEASE_CHECK_KEY_ARN: releaseCheckKey.secretArn },
        memorySize: 256,
        timeout: Duration.seconds(60),
      });
      releaseCheckKey.grantRead(hook);
      const releases = single ? background : codeDeployOf(routesStack);
      const routesTable = single ? table : TableV2.fromTableArn(routesStack, 'StoreTable', Fn.importValue(tableArnExport));
      const checked: LambdaFunction[] = [];
      const searching: LambdaFunction[] = [];
      for (const route of groupRoutes) {
        const { function: fn } = new RouteFunction(routesStack, constructId(route.name), {
          route,
          table: routesTable,
          logRetention,
          settings,
          serverSecret,
          secretsKey,
          ...(single ? {} : { functionName: routeFunctionName(id, route.name) }),
        });
        if (route.deployment.searches) searching.push(fn);
        const { release } = functionAlarms(routesStack, topic, { name: route.name, fn, stage: id }, { latencyBoundMs: RELEASE_LATENCY_BOUND_MS });
        aliases.set(route.name, releaseGradually(fn, { ...releases, deployment, alarms: release, preTraffic: hook }));
        checked.push(fn);
      }
      search?.allow(routesStack, searching, 'read', `R${groupIndex}`);
      // The hook checks the versions of its stack's functions: any version of each (`:*`), so that its
      // permission is in place before a release's new versions exist, never granted alongside them.
      hook.addToRolePolicy(new PolicyStatement({ actions: ['lambda:GetFunctionConfiguration', 'lambda:InvokeFunction'], resources: checked.map((fn) => `${fn.functionArn}:*`) }));
      hook.addToRolePolicy(
        new PolicyStatement({
          actions: ['codedeploy:GetDeployment'],
          resources: [
            routesStack.formatArn({ service: 'codedeploy', resource: 'deploymentgroup', resourceName: `${releases.application.applicationName}/*`, arnFormat: ArnFormat.COLON_RESOURCE_NAME }),
          ],
        }),
      );
      hooks.push({ hook, checked });
      if (!single) acknowledgeNagFindings(routesStack, { tableArn: tableArnExport, releases: releases.application, hook, checked });
    }
    this.routesStack = this.routesStacks[0] ?? data;

    // ---- the HTTP API, invoking the aliases
    const apiStack = (this.apiStack = single ? data : new Stack(this, 'Api', { stackName: `${id}-Api`, ...env, ...protection, description: 'store-api: the HTTP API' }));
    if (!single) for (const routesStack of this.routesStacks) apiStack.addStackDependency(routesStack);
    this.api = new HttpApi(apiStack, 'Api', {
      createDefaultStage: false,
      ...(props.corsOrigins?.length
        ? { corsPreflight: { allowOrigins: props.corsOrigins, allowMethods: [CorsHttpMethod.ANY], allowHeaders: ['authorization', 'content-type', 'if-match', 'idempotency-key'] } }
        : {}),
    });
    new HttpStage(apiStack, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 100, burstLimit: 200 },
      accessLogSettings: { destination: new LogGroupLogDestination(new LogGroup(apiStack, 'AccessLogs', { retention: logRetention })) },
    });
    for (const route of routes) {
      const id = constructId(route.name);
      // One permission per alias for the whole API, in this stack: the routes' stack never refers back to it.
      // In a stack of its own, the API finds each alias by its name, never by an export of the routes'
      // stack: a route then moves between routes stacks, or goes, in any deploy (CloudFormation
      // refuses to delete an export another stack imports). The API's stack deploys after them.
      const target = single
        ? present(aliases.get(route.name), `the alias of ${route.name}, made in this stack`)
        : LambdaFunction.fromFunctionAttributes(apiStack, `${id}Live`, {
            functionArn: apiStack.formatArn({
              service: 'lambda',
              resource: 'function',
              resourceName: `${routeFunctionName(this.node.id, route.name)}:${LIVE}`,
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
            sameEnvironment: true,
          });
      const integration = new HttpLambdaIntegration(`${id}Integration`, target, { scopePermissionToRoute: false });
      new HttpRoute(apiStack, `${id}Route`, {
        httpApi: this.api,
        routeKey: route.method === 'ANY' ? HttpRouteKey.DEFAULT : HttpRouteKey.with(route.path, HttpMethod[route.method]),
        integration,
      });
      // HEAD answers what GET would, without the body (lib/http/head.ts), from the same function.
      if (route.method === 'GET') new HttpRoute(apiStack, `${id}HeadRoute`, { httpApi: this.api, routeKey: HttpRouteKey.with(route.path, HttpMethod.HEAD), integration });
    }
    new ApiMonitoring(apiStack, 'ApiMonitoring', { api: this.api, routes: routes.map((route) => route.name), topic });
    if (!single) acknowledgeNagFindings(apiStack);
    // One stack: its findings, the routes' part's with the data's.
    else for (const { hook, checked } of hooks) acknowledgeNagFindings(data, { releases: background.application, hook, checked, migrations: migrationsProvider });
    this.url = this.api.apiEndpoint;
    this.apiUrlOutput = new CfnOutput(apiStack, 'ApiUrl', { value: this.api.apiEndpoint });
  }
}

/** A route's function name, fixed by the store's and the route's names (at most 64 characters, as Lambda allows). */
export function routeFunctionName(storeId: string, route: string): string {
  const name = `${storeId}-${constructId(route)}`;
  if (name.length <= 64) return name;
  const digest = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, 55)}-${digest}`;
}

/** The routes stack of the resources that name none (resources.ts `stack`). */
const FIRST_ROUTES_GROUP = '';

/** The routes of each routes stack, by the group their resources name, in the registry's order. */
export function routeGroups(): Map<string, RouteDefinition[]> {
  const groups = new Map<string, RouteDefinition[]>();
  for (const resource of registry) {
    const group = ('stack' in resource && resource.stack) || FIRST_ROUTES_GROUP;
    groups.set(group, [...(groups.get(group) ?? []), ...resource.routes]);
  }
  return groups;
}

/** A stack's CodeDeploy application, and the one role its deployment groups share. */
function codeDeployOf(stack: Stack): { application: LambdaApplication; role: Role } {
  const application = new LambdaApplication(stack, 'Releases');
  const role = new Role(stack, 'ReleasesRole', {
    assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
    managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSCodeDeployRoleForLambdaLimited')],
  });
  return { application, role };
}
