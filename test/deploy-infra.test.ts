/**
 * Shipping through CDK (docs/deploying.md), read off the synthesized templates: every caller invokes a
 * `live` alias that CodeDeploy shifts (canary by default, all at once on a disposable stage), with
 * a rollback on alarms and a pre-traffic hook; the migrations run before any alias shifts; every
 * stack stays within 400 resources; the Stage embeds twice with its checks inside; and a snapshot
 * of each stack's template, asset hashes masked, shows a reviewer what a change does.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { describe, expect, it } from 'vitest';
// What the package exports (test/construct-library.test.ts installs it as an app does).
import { StoreApi, StoreApiStage, type StoreApiProps } from '../infra/index.js';
import { routeFunctionName, routeGroups } from '../infra/store-api.js';
import { routes } from '../lib/routes.js';
import { MIGRATIONS } from '../lib/migrations/steps.js';
import { RUN_DEADLINE_MS } from '../lib/deploy/migrations-resource.js';

type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string[]; UpdatePolicy?: Record<string, any> };

const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] };

function synthesize(props: StoreApiProps = {}, name = 'StoreApi-test') {
  const app = new App({ context: NO_BUNDLING });
  const store = new StoreApi(app, name, props);
  const [data, api] = [store.dataStack, store.apiStack].map((stack) => Template.fromStack(stack));
  return { store, data: data!, routes: store.routesStacks.map((stack) => Template.fromStack(stack)), api: api! };
}

const entries = (template: Template | Template[], type: string) => [template].flat().flatMap((t) => Object.entries(t.findResources(type))) as Array<[string, Resource]>;
/** The deployment config of a deployment group, as CloudFormation names it. */
const configOf = (group: Resource) => JSON.stringify(group.Properties.DeploymentConfigName);

const prod = synthesize({}, 'StoreApi-prod');
/** A stage with the options that add resources or change releases: an alarm email, CORS, linear shifts. */
const withOptions = synthesize({ alarmEmail: 'ops@example.com', corsOrigins: ['https://shop.example'], deployment: 'linear' });

describe('releases', () => {
  it("has every API integration invoke its route function's live alias by name, never $LATEST, and import nothing from the routes' stacks", () => {
    const integrations = entries(prod.api, 'AWS::ApiGatewayV2::Integration');
    expect(integrations).toHaveLength(routes.length);
    const aliasArn = (route: string) => `:function:${routeFunctionName('StoreApi-prod', route)}:live`;
    const uris = integrations.map(([, integration]) => JSON.stringify(integration.Properties.IntegrationUri));
    for (const route of routes) expect(uris.some((uri) => uri.includes(aliasArn(route.name)))).toBe(true);
    // The functions have those names.
    const named = prod.routes.flatMap((template) => entries(template, 'AWS::Lambda::Function').map(([, fn]) => fn.Properties.FunctionName));
    for (const route of routes) expect(named).toContain(routeFunctionName('StoreApi-prod', route.name));
    // One permission per alias for the whole API.
    const permissions = entries(prod.api, 'AWS::Lambda::Permission');
    expect(permissions).toHaveLength(routes.length);
    for (const [, permission] of permissions) expect(JSON.stringify(permission.Properties.FunctionName)).toMatch(/:live"/);
    // No function or alias comes from another stack: a route can move between routes stacks, or go, in any deploy.
    expect(JSON.stringify(prod.api.toJSON())).not.toContain('Fn::ImportValue');
    // A routes stack exports nothing at all: moving a route, or removing one, never removes an export another stack imports.
    for (const template of prod.routes) expect(Object.values((template.toJSON().Outputs ?? {}) as Record<string, { Export?: unknown }>).filter((output) => output.Export)).toEqual([]);
  });

  it('gives every function a live alias with a deployment group: canary on a stage that is not disposable, rolled back on its alarms', () => {
    for (const template of [prod.data, ...prod.routes]) {
      const aliases = entries(template, 'AWS::Lambda::Alias');
      const groups = entries(template, 'AWS::CodeDeploy::DeploymentGroup');
      expect(groups).toHaveLength(aliases.length);
      for (const [id, alias] of aliases) {
        expect(alias.Properties.Name).toBe('live');
        // CloudFormation hands the alias's move to CodeDeploy.
        expect(alias.UpdatePolicy?.CodeDeployLambdaAliasUpdate).toBeDefined();
        expect(JSON.stringify(alias.UpdatePolicy)).toContain(id.replace(/Live[0-9A-F]{8}$/, ''));
      }
      for (const [, group] of groups) {
        expect(configOf(group)).toContain('CodeDeployDefault.LambdaCanary10Percent5Minutes');
        expect(group.Properties.AutoRollbackConfiguration).toEqual({ Enabled: true, Events: expect.arrayContaining(['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM']) });
        expect(group.Properties.AlarmConfiguration.Enabled).toBe(true);
        expect(group.Properties.AlarmConfiguration.Alarms.length).toBeGreaterThanOrEqual(1);
      }
    }
    expect(entries(prod.routes, 'AWS::Lambda::Alias')).toHaveLength(routes.length);
    // A route's release watches its errors, its 5xx and its p99 latency.
    for (const [, group] of entries(prod.routes, 'AWS::CodeDeploy::DeploymentGroup')) expect(group.Properties.AlarmConfiguration.Alarms).toHaveLength(3);
  });

  it("runs each routes stack's pre-traffic hook before a route of it takes traffic, and lets the hook invoke the versions of its stack's functions, granted before any version exists", () => {
    let checked = 0;
    for (const template of prod.routes) {
      const [hookId] = entries(template, 'AWS::Lambda::Function').find(([id]) => /^\w*PreTraffic[0-9A-F]{8}$/.test(id))!;
      const aliases = entries(template, 'AWS::Lambda::Alias');
      for (const [, alias] of aliases) expect(JSON.stringify(alias.UpdatePolicy?.CodeDeployLambdaAliasUpdate.BeforeAllowTrafficHook)).toContain(hookId);
      const policies = [...entries(template, 'AWS::IAM::Policy'), ...entries(template, 'AWS::IAM::ManagedPolicy')].filter(([id]) => /^\w*PreTrafficServiceRole/.test(id));
      const statements = policies.flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement);
      const invoke = statements.find((s: { Action: string[] }) => [s.Action].flat().includes('lambda:InvokeFunction'));
      expect(invoke.Resource).toHaveLength(aliases.length);
      // Any version of each function (`function:<name>:*`): the same grant from one release to the next.
      const functionIds = new Set(aliases.map(([, alias]) => alias.Properties.FunctionName.Ref));
      for (const resource of invoke.Resource) {
        expect(resource['Fn::Join'][1].at(-1)).toBe(':*');
        expect(functionIds.has(resource['Fn::Join'][1][0]['Fn::GetAtt'][0])).toBe(true);
        expect(JSON.stringify(resource)).not.toMatch(/CurrentVersion/);
      }
      checked += aliases.length;
    }
    expect(checked).toBe(routes.length);
  });

  it('gates every deployment group on alarms of the version it releases, in its own stage: errors by executed version, 5xx as a rate, p99', () => {
    for (const template of [prod.data, ...prod.routes]) {
      const alarms = new Map(entries(template, 'AWS::CloudWatch::Alarm'));
      for (const [, group] of entries(template, 'AWS::CodeDeploy::DeploymentGroup')) {
        const gated = (group.Properties.AlarmConfiguration.Alarms as Array<{ Name: { Ref: string } }>).map((alarm) => alarms.get(alarm.Name.Ref)!);
        expect(gated.length).toBeGreaterThan(0);
        for (const alarm of gated) {
          const json = JSON.stringify(alarm.Properties);
          // Each names the released version: Lambda's ExecutedVersion, or our metrics' Version, with the stage.
          expect(json).toMatch(/"Name":"ExecutedVersion"|"Name":"Version"/);
          expect(json).toContain('CurrentVersion');
          if (json.includes('"Name":"Version"')) expect(json).toContain('"Value":"StoreApi-prod"');
        }
        const rate = gated.find((alarm) => JSON.stringify(alarm.Properties).includes('100 * errors / requests'));
        if (gated.length > 1) expect(rate, 'a route is gated on its 5xx rate').toBeDefined();
      }
    }
  });

  it('shifts all at once on a disposable stage, and as -c deployment says otherwise', () => {
    const configs = ({ data, routes: routesTemplate }: typeof prod) =>
      new Set([...entries(data, 'AWS::CodeDeploy::DeploymentGroup'), ...entries(routesTemplate, 'AWS::CodeDeploy::DeploymentGroup')].map(([, group]) => configOf(group)));
    expect(configs(synthesize({ disposable: true }))).toEqual(new Set(['"CodeDeployDefault.LambdaAllAtOnce"']));
    expect([...configs(withOptions)]).toEqual([expect.stringContaining('CodeDeployDefault.LambdaLinear10PercentEvery1Minute')]);
    expect([...configs(synthesize({ disposable: true, deployment: 'canary' }))]).toEqual([expect.stringContaining('Canary10Percent5Minutes')]);
  });

  it('targets the background functions through their aliases: stream mappings and schedules', () => {
    for (const [, mapping] of entries(prod.data, 'AWS::Lambda::EventSourceMapping')) expect(JSON.stringify(mapping.Properties.FunctionName)).toContain(':live');
    for (const [, rule] of entries(prod.data, 'AWS::Events::Rule')) expect(JSON.stringify(rule.Properties.Targets)).toMatch(/Live[0-9A-F]{8}/);
  });
});

describe('migrations on deploy', () => {
  it("runs them behind the Provider framework: its isComplete polled every 10 s, within the framework's 55 minutes, within CloudFormation's hour", () => {
    const [[, resource]] = entries(prod.data, 'Custom::StoreMigrations') as [[string, Resource]];
    expect(JSON.stringify(resource.Properties.ServiceToken)).toMatch(/MigrationsProviderframeworkonEvent/);
    // CloudFormation's own bound for the resource, stated: at most an hour.
    expect(Number(resource.Properties.ServiceTimeout)).toBe(3600);
    const [[, waiter]] = entries(prod.data, 'AWS::StepFunctions::StateMachine') as [[string, Resource]];
    const definition = JSON.stringify(waiter.Properties.DefinitionString);
    // 55 minutes of 10 s intervals: the framework's retries of isComplete; the run's own deadline (50 minutes) comes first.
    expect(definition).toContain('\\"IntervalSeconds\\":10');
    expect(definition).toContain('\\"MaxAttempts\\":330');
    expect(RUN_DEADLINE_MS).toBeLessThan(330 * 10_000);
    const [, isCompleteFn] = entries(prod.data, 'AWS::Lambda::Function').find(([id]) => id.startsWith('MigrationsRun'))!;
    expect(isCompleteFn.Properties).toMatchObject({ Handler: 'index.isComplete', Timeout: 900 });
  });

  it('runs the migrations custom resource before any alias shifts, again whenever a release adds a step', () => {
    const [[resourceId, resource]] = entries(prod.data, 'Custom::StoreMigrations') as [[string, Resource]];
    expect(resource.Properties.Steps).toBe(MIGRATIONS.map((step) => step.id).join(','));
    // The background aliases wait for it; the routes' stack (and so every route's alias) deploys after its stack.
    for (const [, alias] of entries(prod.data, 'AWS::Lambda::Alias')) expect(alias.DependsOn).toContain(resourceId);
    for (const routesStack of prod.store.routesStacks) {
      expect(routesStack.dependencies).toContain(prod.store.dataStack);
      expect(prod.store.apiStack.dependencies).toContain(routesStack);
    }
  });
});

describe('CloudFormation limits', () => {
  it('keeps every stack within 400 resources, alarms and email included', () => {
    for (const { data, routes: routesTemplate, api } of [prod, withOptions]) {
      for (const template of [data, ...routesTemplate, api]) expect(Object.keys(template.toJSON().Resources).length).toBeLessThanOrEqual(400);
    }
  });
});

describe('one stack, for SAM CLI', () => {
  it('holds the API, its integrations and every function in one template, as `npm run sam` synthesizes it (-c layout=single)', () => {
    const app = new App({ context: NO_BUNDLING });
    const store = new StoreApi(app, 'StoreApi-sam', { singleStack: true });
    expect(store.routesStack).toBe(store.dataStack);
    expect(store.apiStack).toBe(store.dataStack);
    const template = Template.fromStack(store.dataStack);
    expect(entries(template, 'AWS::ApiGatewayV2::Integration')).toHaveLength(routes.length);
    // The background's three, the migrations' two and a pre-traffic hook per group of routes (and the Provider framework's own three).
    const ours = entries(template, 'AWS::Lambda::Function').filter(([id]) => !id.startsWith('MigrationsProviderframework'));
    expect(ours).toHaveLength(routes.length + 5 + routeGroups().size);
    // Nothing is imported from another stack.
    expect(JSON.stringify(template.toJSON())).not.toContain('Fn::ImportValue');
  });
});

describe('StoreApiStage', () => {
  it('embeds twice in an app of its own (beta, prod), each with its stacks, and the AwsSolutions checks travel with it', () => {
    const app = new App({ context: NO_BUNDLING });
    const beta = new StoreApiStage(app, 'Beta', { disposable: true });
    const prodStage = new StoreApiStage(app, 'Prod', { alarmEmail: 'ops@example.com' });
    // The app's synth runs the checks its stages carry: it passes.
    app.synth();
    const names = [beta, prodStage].map((stage) =>
      stage
        .synth()
        .stacks.map((stack) => stack.stackName)
        .sort(),
    );
    expect(names).toEqual([
      ['StoreApi-Beta', 'StoreApi-Beta-Api', 'StoreApi-Beta-CatalogRoutes', 'StoreApi-Beta-Routes', 'StoreApi-Beta-VocabularyRoutes'],
      ['StoreApi-Prod', 'StoreApi-Prod-Api', 'StoreApi-Prod-CatalogRoutes', 'StoreApi-Prod-Routes', 'StoreApi-Prod-VocabularyRoutes'],
    ]);
    // A finding in an embedded stage fails its synth, though the app added no check itself.
    const careless = new App({ context: NO_BUNDLING });
    const stage = new StoreApiStage(careless, 'Careless', { disposable: true });
    new Secret(new Stack(stage, 'Extra'), 'Unrotated');
    expect(() => careless.synth()).toThrow(/automatic rotation/);
  });
});

/** A template with what changes on every build masked: asset hashes, and the code hash in a version's logical id. */
function masked(template: Template): string {
  return `${JSON.stringify(template.toJSON(), null, 2)
    .replace(/[0-9a-f]{64}/g, '<asset hash>')
    .replace(/(CurrentVersion[0-9A-F]{8})[0-9a-f]{32}/g, '$1<code hash>')}\n`;
}

describe('the templates, as a reviewer reads them', () => {
  it('match their snapshots (update with `npx vitest run test/deploy-infra.test.ts -u` and read the diff)', async () => {
    await expect(masked(prod.data)).toMatchFileSnapshot('./snapshots/StoreApi-prod.template.json');
    await expect(masked(prod.routes[0]!)).toMatchFileSnapshot('./snapshots/StoreApi-prod-Routes.template.json');
    await expect(masked(prod.routes[1]!)).toMatchFileSnapshot('./snapshots/StoreApi-prod-CatalogRoutes.template.json');
    await expect(masked(prod.routes[2]!)).toMatchFileSnapshot('./snapshots/StoreApi-prod-VocabularyRoutes.template.json');
    await expect(masked(prod.api)).toMatchFileSnapshot('./snapshots/StoreApi-prod-Api.template.json');
  });
});
