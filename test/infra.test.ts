import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { AwsSolutionsChecks } from 'cdk-nag';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { routeGroups, StoreApi, type StoreApiProps } from '../infra/store-api.js';
import { storeFromContext } from '../infra/context.js';
import { functionLogicalId, type SynthesizedTemplate } from '../infra/function-ids.js';
import { FEED_PARTITIONS, routes } from '../lib/routes.js';
import { PENDING_INSERTS, PLACED_INSERTS } from '../lib/changes/placer.js';
import { table } from '../lib/db/table.js';
import { CHANGE_INSERTS } from '../lib/events/stream-filter.js';
import { KMS_CONTEXT } from '../lib/sealed-secrets.js';

type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string[]; DeletionPolicy?: string; UpdatePolicy?: any };

/** The store's templates (one per routes stack), without bundling its functions (test/artifact.test.ts synthesizes them bundled). */
function synthesize(props: StoreApiProps = {}, name = 'Test') {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const store = new StoreApi(app, name, props);
  return { app, store, data: Template.fromStack(store.dataStack), routes: store.routesStacks.map((stack) => Template.fromStack(stack)), api: Template.fromStack(store.apiStack) };
}

/** The resources of the routes stacks, as one template's: where every route's function is. */
const routeFunctionsOf = (templates: Template[]): SynthesizedTemplate => ({ Resources: Object.assign({}, ...templates.map((t) => t.toJSON().Resources)) });

/** The templates of a store made from an app's context, as `cdk synth -c …` makes it. */
function fromContext(context: Record<string, string>) {
  const { name, props } = storeFromContext((key) => context[key]);
  return synthesize(props, name);
}

/** The store with no -c, and with every -c these tests set (each checked on its own below: the CPU, the retention, the throttle, an alarm email, a smoke key, a disposable stage, a quieter log level): two syntheses for all of them. */
const withoutOptions = fromContext({});
const withOptions = fromContext({
  architecture: 'x86_64',
  changeRetentionDays: '30',
  throttleRate: '40',
  throttleBurst: '80',
  alarmEmail: 'ops@example.com',
  smokeKey: 'true',
  disposable: 'true',
  logLevel: 'WARN',
});

const store = synthesize();
const { data, routes: routesTemplates, api } = store;
const all = [data, ...routesTemplates, api];
const routesTemplate = routeFunctionsOf(routesTemplates);
const resourcesOf = (templates: Template[], type: string): Resource[] => templates.flatMap((t) => Object.values(t.findResources(type)) as Resource[]);
const resources = (type: string): Resource[] => resourcesOf(all, type);
/** CDK's own functions of the Provider framework (the migrations' waiter): not ours to configure. */
const isProviderFramework = (fn: Resource) => String(fn.Properties.Description ?? '').startsWith('AWS CDK resource provider framework');
/** Our functions: the routes', the background's, the migrations' and the hooks'. */
const ourFunctions = (templates: Template[]) => resourcesOf(templates, 'AWS::Lambda::Function').filter((fn) => !isProviderFramework(fn));
const functions = ourFunctions(all);

/** A route's function, found as `npm run sam` finds it. */
function functionOf(routeName: string): [string, Resource] {
  const logicalId = functionLogicalId(routesTemplate, routeName);
  return [logicalId, routesTemplate.Resources[logicalId] as Resource];
}

/**
 * The logical id of the function that a reference (a mapping's FunctionName, a rule target's Arn)
 * invokes through its `live` alias; undefined when it invokes no alias (`$LATEST`).
 */
function aliasTarget(template: Template, reference: unknown): string | undefined {
  const text = JSON.stringify(reference);
  const entries = Object.entries(template.toJSON().Resources as Record<string, Resource>);
  const alias = entries.find(([id, r]) => r.Type === 'AWS::Lambda::Alias' && text.includes(`"${id}"`));
  if (alias) return alias[1].Properties.FunctionName.Ref;
  const named = entries.find(([id, r]) => r.Type === 'AWS::Lambda::Function' && text.includes(`{"Ref":"${id}"}`));
  return named && text.includes(':live') ? named[0] : undefined;
}

describe('StoreApi', () => {
  it("has one function per route of the route table, the change publisher, the feed's placer and the webhooks' worker, ESM on Node 24 arm64", () => {
    // ... and the migrations' two handlers (onEvent, isComplete) and each routes stack's pre-traffic hook (a stack per group: resources.ts).
    expect(routesTemplates).toHaveLength(routeGroups().size);
    expect(functions).toHaveLength(routes.length + 5 + routesTemplates.length);
    for (const fn of functions) expect(fn.Properties).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Handler: expect.stringMatching(/^index\.(handler|isComplete)$/) });
    for (const route of routes) expect(functionOf(route.name)[1].Properties.Environment.Variables.STORE_TABLE_NAME).toBeDefined();
    for (const route of routes) expect(functionOf(route.name)[1].Properties.MemorySize).toBe(route.deployment.memoryMb);
  });

  it('has one HTTP API route per route-table entry, with its method and path, and HEAD beside each GET', () => {
    const keys = resources('AWS::ApiGatewayV2::Route')
      .map((r) => r.Properties.RouteKey)
      .sort();
    const expected = routes.flatMap((r) => (r.method === 'ANY' ? ['$default'] : [`${r.method} ${r.path}`, ...(r.method === 'GET' ? [`HEAD ${r.path}`] : [])]));
    expect(keys).toEqual(expected.sort());
  });

  it('builds the table from the shared definition: keys, indexes, TTL, on-demand, PITR, retained', () => {
    data.hasResource('AWS::DynamoDB::GlobalTable', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        KeySchema: [
          { AttributeName: table.partitionKey, KeyType: 'HASH' },
          { AttributeName: table.sortKey, KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
        TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true },
        Replicas: [Match.objectLike({ DeletionProtectionEnabled: true, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } })],
      }),
    });
    const [store] = resources('AWS::DynamoDB::GlobalTable');
    const indexes = store!.Properties.GlobalSecondaryIndexes.map((i: any) => [i.IndexName, i.KeySchema.map((k: any) => k.AttributeName)]);
    expect(indexes).toEqual(Object.entries(table.indexes).map(([name, i]) => [name, [i.partitionKey, i.sortKey]]));
  });

  it('generates the server secret, in no function configuration: only the routes that sign read it, with GetSecretValue alone', () => {
    const secrets = Object.keys(data.findResources('AWS::SecretsManager::Secret')).filter((id) => id.startsWith('ServerSecret'));
    expect(secrets).toHaveLength(1);
    const server = data.findResources('AWS::SecretsManager::Secret')[secrets[0]!]!;
    expect(server.Properties.GenerateSecretString).toMatchObject({ PasswordLength: 48, ExcludePunctuation: true });
    // Kept with the table it seals, unless the stage is disposable.
    expect(server.DeletionPolicy).toBe('Retain');
    for (const template of all) expect(JSON.stringify(template.toJSON())).not.toContain('resolve:secretsmanager');
    const policies = resources('AWS::IAM::Policy');
    for (const route of routes) {
      const [, fn] = functionOf(route.name);
      const variables = fn.Properties.Environment.Variables;
      expect(variables.STORE_SECRET ?? '', route.name).toBe('');
      expect(variables.STORE_SECRET_ARN !== undefined, route.name).toBe(route.deployment.usesServerSecret);
      const role = fn.Properties.Role['Fn::GetAtt'][0];
      const secretStatements = policies
        .filter((p) => p.Properties.Roles.some((r: any) => r.Ref === role))
        .flatMap((p) => p.Properties.PolicyDocument.Statement)
        .filter((s: any) => JSON.stringify(s.Action).includes('secretsmanager'));
      expect(secretStatements, route.name).toEqual(
        route.deployment.usesServerSecret ? [expect.objectContaining({ Action: 'secretsmanager:GetSecretValue', Resource: { 'Fn::ImportValue': expect.stringContaining(secrets[0]!) } })] : [],
      );
    }
  });

  it("makes the stage's own keys in secrets CloudFormation generates, read only by the migrations that put them in the table and by the pre-traffic hooks", () => {
    const keySecrets = (template: Template) => Object.entries(template.findResources('AWS::SecretsManager::Secret')).filter(([id]) => !id.startsWith('ServerSecret'));
    const [[releaseCheck, secret]] = keySecrets(data) as [[string, Resource]];
    expect(releaseCheck).toMatch(/^ReleaseCheckKey/);
    // 73 characters of 0-9 and A-F: the API key, then its secure key.
    expect(secret.Properties.GenerateSecretString).toEqual({ PasswordLength: 73, ExcludeLowercase: true, ExcludePunctuation: true, IncludeSpace: false, ExcludeCharacters: 'GHIJKLMNOPQRSTUVWXYZ' });
    const [migrations] = Object.values(data.findResources('Custom::StoreMigrations')) as Resource[];
    expect(migrations!.Properties.StageKeys).toEqual({ releaseCheck: { Ref: releaseCheck } });
    // Who may read it: the roles whose policies name it.
    const readers = resources('AWS::IAM::Policy')
      .filter((policy) => JSON.stringify(policy.Properties.PolicyDocument).includes(releaseCheck))
      .flatMap((policy) => policy.Properties.Roles.map((role: any) => JSON.stringify(role)));
    expect(readers.length).toBe(2 + routesTemplates.length);
    expect(readers.every((role) => /Migrations(Run)?ServiceRole|PreTrafficServiceRole/.test(role))).toBe(true);
    for (const hook of ourFunctions(routesTemplates).filter((fn) => fn.Properties.Environment.Variables.STORE_RELEASE_CHECK_KEY_ARN)) {
      expect(JSON.stringify(hook.Properties.Environment.Variables.STORE_RELEASE_CHECK_KEY_ARN)).toContain(releaseCheck);
    }
    expect(ourFunctions(routesTemplates).filter((fn) => fn.Properties.Environment.Variables.STORE_RELEASE_CHECK_KEY_ARN)).toHaveLength(routesTemplates.length);
    // A stage that asks for a smoke key (-c smokeKey=true) has it too, named to the migrations and given as an output.
    const smoked = withOptions;
    const [, [smokeId]] = keySecrets(smoked.data).sort(([a], [b]) => a.localeCompare(b)) as [[string, Resource], [string, Resource]];
    expect(smokeId).toMatch(/^SmokeKey/);
    const [smokedMigrations] = Object.values(smoked.data.findResources('Custom::StoreMigrations')) as Resource[];
    expect(smokedMigrations!.Properties.StageKeys.smoke).toEqual({ Ref: smokeId });
    smoked.data.hasOutput('SmokeKeySecretArn', { Value: { Ref: smokeId } });
  });

  it('builds x86_64 functions when the context asks for them (npm run sam on an x86_64 host), and arm64 ones by default', () => {
    const architectures = ({ data, routes, api }: typeof withOptions) => new Set(ourFunctions([data, ...routes, api]).map((fn) => fn.Properties.Architectures.join()));
    expect(architectures(withOptions)).toEqual(new Set(['x86_64']));
    expect(architectures(withoutOptions)).toEqual(new Set(['arm64']));
    expect(storeFromContext((key) => ({ architecture: 'arm64' })[key]).props.architecture).toBe('arm64');
    expect(() => storeFromContext((key) => ({ architecture: 'amd64' })[key])).toThrow('-c architecture must be one of arm64, x86_64');
  });

  it("finds every route's function by the route named in its metadata, not by its IAM role, whose logical id starts the same way", () => {
    const json = routesTemplate;
    const ids = routes.map((route) => functionLogicalId(json, route.name));
    expect(new Set(ids).size).toBe(routes.length);
    for (const id of ids) expect(json.Resources[id]!.Type).toBe('AWS::Lambda::Function');
    const role = Object.keys(json.Resources).find((id) => id.startsWith('TaxRulesGetFunction') && json.Resources[id]!.Type === 'AWS::IAM::Role');
    expect(role, 'the role the old README lookup found first').toBeDefined();
    expect(functionLogicalId(json, 'tax-rules/get')).not.toBe(role);
  });

  it("gives every function the changes' retention, 365 days unless -c changeRetentionDays says otherwise", () => {
    const retention = ({ data, routes, api }: typeof withOptions) => ourFunctions([data, ...routes, api]).map((fn) => fn.Properties.Environment.Variables.STORE_CHANGE_RETENTION_DAYS);
    expect(new Set(retention(withoutOptions))).toEqual(new Set(['365']));
    expect(new Set(retention(withOptions))).toEqual(new Set(['30']));
    expect(() => storeFromContext((key) => ({ changeRetentionDays: '0' })[key])).toThrow('-c changeRetentionDays must be a positive number of days');
  });

  it('keeps the table by default: cdk.json does not opt in to a disposable one', () => {
    const cdkJson = JSON.parse(readFileSync(path.resolve('cdk.json'), 'utf8')) as { context: Record<string, unknown> };
    expect(cdkJson.context.disposable).toBeUndefined();
    data.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it("writes every function's platform logs as JSON, at the stage's level", () => {
    for (const fn of functions) expect(fn.Properties.LoggingConfig).toEqual({ LogFormat: 'JSON', ApplicationLogLevel: 'INFO', SystemLogLevel: 'INFO', LogGroup: expect.anything() });
  });

  it('applies a quieter level (-c logLevel=WARN) itself, so that Lambda never drops the lines that carry the release gates’ metrics', () => {
    const quiet = [withOptions.data, ...withOptions.routes].flatMap((template) => Object.values(template.findResources('AWS::Lambda::Function')));
    const ours = quiet.filter((fn) => fn.Properties.Environment?.Variables?.STORE_STAGE !== undefined);
    expect(ours.length).toBeGreaterThan(60);
    for (const fn of ours) {
      expect(fn.Properties.LoggingConfig.ApplicationLogLevel).toBe('INFO');
      expect(fn.Properties.Environment.Variables.STORE_LOG_LEVEL).toBe('warn');
    }
  });

  it('watches the API, every function, the table and login lock-outs with alarms and a dashboard', () => {
    const alarms = resources('AWS::CloudWatch::Alarm');
    const described = alarms.map((a) => String(a.Properties.AlarmDescription));
    // The API's 5xx; each function's errors (through its alias, by the version that ran: the one a
    // release watches, and the only one once released), throttles and near-timeout (the publisher's, the placer's and the webhooks'
    // worker's too), each route's 5xx rate and p99 latency (which its releases watch); the table's
    // two, lock-outs; the publisher's iterator age and dead letters; a webhook disabled; the feed's
    // oldest pending change, the dispatcher's lag and the due queue.
    expect(alarms).toHaveLength(1 + 3 * (routes.length + 3) + 2 * routes.length + 2 + 1 + 2 + 1 + 3);
    expect(described.some((d) => d.includes('5xx'))).toBe(true);
    expect(described.some((d) => d.includes('lock-out') || d.includes('refused for too many failures'))).toBe(true);
    expect(alarms.filter((a) => a.Properties.MetricName === 'Throttles')).toHaveLength(routes.length + 3);
    for (const metric of ['OldestPendingAge', 'DispatchLag', 'DueJobs'])
      expect(
        alarms.some((a) => JSON.stringify(a.Properties).includes(`"${metric}"`)),
        metric,
      ).toBe(true);
    const dashboard = JSON.stringify(resources('AWS::CloudWatch::Dashboard')[0]!.Properties.DashboardBody);
    for (const metric of ['OldestPendingAge', 'FeedLag', 'DispatchLag', 'DueJobs']) expect(dashboard).toContain(metric);
    expect(resources('AWS::CloudWatch::Dashboard')).toHaveLength(1);
    // Without an email, no topic; with one, every alarm of every stack notifies it.
    expect(resources('AWS::SNS::Topic')).toHaveLength(0);
    const withEmail = withOptions;
    withEmail.data.resourceCountIs('AWS::SNS::Topic', 1);
    withEmail.data.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    for (const alarm of resourcesOf([withEmail.data, ...withEmail.routes, withEmail.api], 'AWS::CloudWatch::Alarm')) expect(alarm.Properties.AlarmActions).toHaveLength(1);
  });

  it('passes the AwsSolutions checks (cdk-nag) as app.ts runs them on every synth, and fails a finding no one acknowledged', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    new StoreApi(app, 'Checked', { alarmEmail: 'ops@example.com' });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).not.toThrow();
    const careless = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    new Secret(new Stack(careless, 'Careless'), 'Unrotated');
    Validations.of(careless).addPlugins(new AwsSolutionsChecks(careless));
    expect(() => careless.synth()).toThrow(/automatic rotation/);
  });

  it('traces every function with X-Ray', () => {
    for (const fn of functions) expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
  });

  it('keeps every released version when the next replaces it, so that a rollback has one to go back to', () => {
    const versions = resources('AWS::Lambda::Version');
    expect(versions.length).toBeGreaterThan(routes.length);
    for (const version of versions) expect(version).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it('protects the stacks of a kept stage from deletion, not those of a disposable one', () => {
    expect([store.store.dataStack, ...store.store.routesStacks, store.store.apiStack].map((stack) => stack.terminationProtection)).toEqual(Array(2 + store.store.routesStacks.length).fill(true));
    const disposable = withOptions.store;
    expect([disposable.dataStack, ...disposable.routesStacks, disposable.apiStack].every((stack) => !stack.terminationProtection)).toBe(true);
  });

  it('lets a dev stage destroy its table', () => {
    const dev = withOptions.data;
    dev.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Delete' });
    dev.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Delete' });
  });

  it('gives each function exactly the DynamoDB actions its route declares, never a wildcard', () => {
    const policies = resources('AWS::IAM::Policy');
    for (const route of routes) {
      const [, fn] = functionOf(route.name);
      const role = fn.Properties.Role['Fn::GetAtt'][0];
      const statements = policies.filter((p) => p.Properties.Roles.some((r: any) => r.Ref === role)).flatMap((p) => p.Properties.PolicyDocument.Statement);
      const tableStatements = statements.filter((s: any) => JSON.stringify(s.Action).includes('dynamodb:'));
      const actions = tableStatements.flatMap((s: any) => [s.Action].flat()).sort();
      expect(actions, route.name).toEqual(route.deployment.dynamodb.map((a) => `dynamodb:${a}`).sort());
      for (const statement of tableStatements) {
        expect(JSON.stringify(statement.Action)).not.toContain('*');
        const targets = [statement.Resource].flat().map((r: any) => JSON.stringify(r));
        const limited = statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
        // A read that may place the feed writes only the feed's partitions.
        if (limited) expect(limited, route.name).toEqual(route.deployment.writesUnder);
        else expect([statement.Action].flat().some((a: string) => /Put|Update|Delete/.test(a)) && route.deployment.writesUnder !== undefined).toBe(false);
        expect(targets.some((t: string) => t.includes('/index/*'))).toBe(route.deployment.dynamodb.includes('Query') && !limited);
      }
    }
  });

  it('lets only the functions that verify keys or sign deliveries open sealed secrets, and only the webhook create make data keys', () => {
    data.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    const policies = resources('AWS::IAM::Policy');
    const kmsActionsOf = (role: string) =>
      policies
        .filter((p) => p.Properties.Roles.some((r: any) => r.Ref === role))
        .flatMap((p) => p.Properties.PolicyDocument.Statement)
        .filter((s: any) => JSON.stringify(s.Action).includes('kms:'));
    for (const route of routes) {
      const [, fn] = functionOf(route.name);
      const statements = kmsActionsOf(fn.Properties.Role['Fn::GetAtt'][0]);
      const actions = statements.flatMap((s: any) => [s.Action].flat()).sort();
      const expected = !route.permission ? [] : route.deployment.sealsSecrets ? ['kms:Decrypt', 'kms:GenerateDataKey'] : ['kms:Decrypt'];
      expect(actions, route.name).toEqual(expected);
      for (const statement of statements) expect(statement.Condition, route.name).toEqual({ StringEquals: { 'kms:EncryptionContext:purpose': KMS_CONTEXT.purpose } });
      expect(Object.keys(fn.Properties.Environment.Variables).includes('STORE_SECRETS_KEY_ARN'), route.name).toBe(route.permission !== null);
    }
    // Nothing else opens them: not the publisher, not the placer.
    const others = Object.entries(data.findResources('AWS::IAM::Policy')).filter(([id]) => /^(ChangeEvents|ChangesPlacer)/.test(id));
    expect(others.length).toBeGreaterThan(0);
    for (const [, policy] of others) expect(JSON.stringify((policy as Resource).Properties.PolicyDocument)).not.toContain('kms:');
  });

  it("puts every change on its event bus from the table's stream: filtered, an outage retried for a day, the keys of what is refused and the pointers of lost batches kept and alarmed", () => {
    data.hasResourceProperties('AWS::DynamoDB::GlobalTable', { StreamSpecification: { StreamViewType: 'NEW_IMAGE' } });
    data.resourceCountIs('AWS::Events::EventBus', 1);
    const mapping = resources('AWS::Lambda::EventSourceMapping').find((m) => JSON.stringify(m.Properties.FilterCriteria).includes('CHANGE#'));
    expect(mapping!.Properties).toMatchObject({ StartingPosition: 'TRIM_HORIZON', MaximumRecordAgeInSeconds: 86_400, MaximumRetryAttempts: 10_000 });
    // A batch the function could not handle in a day is not dropped: its pointer goes to the same queue.
    expect(mapping!.Properties.DestinationConfig).toEqual({ OnFailure: { Destination: { 'Fn::GetAtt': [expect.stringMatching(/^ChangeEventsDeadLetters/), 'Arn'] } } });
    const [publisherId, publisher] = Object.entries(data.findResources('AWS::Lambda::Function')).find(([name]) => name.startsWith('ChangeEventsPublisher')) as [string, Resource];
    // The mapping invokes the publisher's alias, which its releases move.
    expect(aliasTarget(data, mapping!.Properties.FunctionName)).toBe(publisherId);
    expect(publisher.Properties.Environment.Variables.STORE_EVENTS_DEAD_LETTERS_URL).toEqual({ Ref: expect.stringMatching(/^ChangeEventsDeadLetters/) });
    // The mapping's filter is the pattern the local reader of the stream uses (lib/events/stream-filter.ts).
    expect(mapping!.Properties.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))).toEqual([CHANGE_INSERTS]);
    // The dead letters refuse plain HTTP and are encrypted.
    data.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 86_400 });
    data.hasResourceProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
    // The publisher may put events on its bus, read the stream and send dead letters: nothing else.
    const [policy] = Object.entries(data.findResources('AWS::IAM::Policy')).filter(([id]) => id.startsWith('ChangeEventsPublisher'));
    const actions = (policy![1] as Resource).Properties.PolicyDocument.Statement.flatMap((statement: { Action: string | string[] }) => [statement.Action].flat());
    expect(actions.sort()).toEqual(
      [
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
        'dynamodb:ListStreams',
        'events:PutEvents',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:SendMessage',
        'xray:PutTelemetryRecords',
        'xray:PutTraceSegments',
      ].sort(),
    );
    const described = resources('AWS::CloudWatch::Alarm').map((a) => String(a.Properties.AlarmDescription));
    expect(described.filter((d) => d.includes('event bus') || d.includes('EventBridge'))).toHaveLength(2);
  });

  it("places the feed's changes from the table's stream and every minute, one placer at a time, writing only the feed's partitions", () => {
    const [id, placer] = Object.entries(data.findResources('AWS::Lambda::Function')).find(([name]) => name.startsWith('ChangesPlacer')) as [string, Resource];
    expect(placer.Properties).toMatchObject({ ReservedConcurrentExecutions: 1, Timeout: 60 });
    // Its mapping and its schedule invoke its alias.
    const mapping = resources('AWS::Lambda::EventSourceMapping').find((m) => aliasTarget(data, m.Properties.FunctionName) === id)!;
    expect(mapping.Properties.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))).toEqual([PENDING_INSERTS]);
    expect(mapping.Properties.StartingPosition).toBe('LATEST');
    const rules = resources('AWS::Events::Rule').filter((rule) => aliasTarget(data, rule.Properties.Targets[0].Arn) === id);
    expect(rules.map((rule) => rule.Properties.ScheduleExpression)).toEqual(['rate(1 minute)']);
    const [policy] = Object.entries(data.findResources('AWS::IAM::Policy')).filter(([name]) => name.startsWith('ChangesPlacer'));
    const statements = (policy![1] as Resource).Properties.PolicyDocument.Statement as Array<{ Action: string | string[]; Condition?: Record<string, Record<string, string[]>> }>;
    const writes = statements.filter((s) => [s.Action].flat().some((action) => /dynamodb:(Put|Update|Delete)Item/.test(action)));
    expect(writes).toHaveLength(1);
    expect(writes[0]!.Condition).toEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...FEED_PARTITIONS] } });
  });

  it("wakes the webhooks' worker from the table's stream when changes are placed, and every minute, one run at a time, on the store table alone", () => {
    data.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(1 minute)' });
    const [id, worker] = Object.entries(data.findResources('AWS::Lambda::Function')).find(([name]) => name.startsWith('WebhooksWorker')) as [string, Resource];
    const mapping = resources('AWS::Lambda::EventSourceMapping').find((m) => aliasTarget(data, m.Properties.FunctionName) === id)!;
    expect(mapping.Properties.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))).toEqual([PLACED_INSERTS]);
    expect(mapping.Properties).toMatchObject({ StartingPosition: 'LATEST', MaximumRetryAttempts: 0 });
    expect(worker!.Properties).toMatchObject({ ReservedConcurrentExecutions: 1, Timeout: 60 });
    const [policy] = Object.entries(data.findResources('AWS::IAM::Policy')).filter(([name]) => name.startsWith('WebhooksWorker'));
    const statements = (policy![1] as Resource).Properties.PolicyDocument.Statement as Array<{ Action: string | string[]; Resource: unknown }>;
    const table = statements.find((s) => [s.Action].flat().includes('dynamodb:Query'))!;
    expect([table.Action].flat().sort()).toEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ]);
    // And it opens the subscriptions' sealed secrets, to sign.
    expect(statements.flatMap((s) => [s.Action].flat()).every((action) => action.startsWith('dynamodb:') || action.startsWith('xray:') || action === 'kms:Decrypt')).toBe(true);
    expect(id).toBeTruthy();
  });

  it('throttles the stage as -c throttleRate and -c throttleBurst say, 100 and 200 requests a second unless they do', () => {
    const stage = ({ api }: typeof withOptions) => {
      const [found] = Object.values(api.findResources('AWS::ApiGatewayV2::Stage')) as Resource[];
      return found!.Properties.DefaultRouteSettings;
    };
    expect(stage(withoutOptions)).toMatchObject({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 });
    expect(stage(withOptions)).toMatchObject({ ThrottlingRateLimit: 40, ThrottlingBurstLimit: 80 });
    for (const bad of ['0', '-5', '1.5', 'many']) expect(() => storeFromContext((key) => ({ throttleRate: bad })[key]), bad).toThrow('-c throttleRate must be a positive whole number');
  });

  it('throttles and logs the default stage, keeps logs a month, and outputs the URL and table name', () => {
    api.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: Match.objectLike({ ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 }),
      AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }),
    });
    for (const group of resources('AWS::Logs::LogGroup')) expect(group.Properties.RetentionInDays).toBe(30);
    const outputs = all.flatMap((template) => Object.keys(template.findOutputs('*'))).filter((name) => !name.startsWith('ExportsOutput'));
    expect(outputs.sort()).toEqual(['ApiUrl', 'EventBusName', 'EventsDeadLettersUrl', 'SecretsKeyArn', 'TableArn', 'TableName']);
    expect(resources('AWS::ApiGatewayV2::Api')[0]!.Properties.CorsConfiguration).toBeUndefined();
  });
});
