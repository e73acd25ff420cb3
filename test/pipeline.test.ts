/**
 * The example pipeline (infra/pipeline.ts), synthesized offline as `npm run synth:pipeline` does:
 * a synth step that runs the tests, a Beta stage with its smoke check after it, a manual approval,
 * then Prod; the stages' own checks pass inside it.
 */
import { spawnSync } from 'node:child_process';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { pipelineContext, storePipeline } from '../infra/pipeline.js';

/** The pipeline made from this context, its app synthesized as the CLI would (the stages' checks run). */
function synthesized(context: Record<string, string>) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const pipeline = storePipeline(
    app,
    pipelineContext((key) => context[key]),
  );
  app.synth();
  return pipeline;
}

/** As the placeholders make it: one account for the pipeline and both stages. */
const placeholders = synthesized({});
/** Set up with every option: its own account and region, a codeconnections connection, Beta and Prod each in an account of its own. */
const SET_UP = {
  account: '222222222222',
  region: 'eu-central-1',
  repo: "acme/store's-api",
  branch: 'release',
  connectionArn: 'arn:aws:codeconnections:eu-central-1:222222222222:connection/abc',
  alarmEmail: 'ops@example.com',
  betaAccount: '444444444444',
  prodAccount: '333333333333',
};
const setUp = synthesized(SET_UP);

describe('the example pipeline', () => {
  it('tests and synthesizes, deploys Beta all at once and smoke-checks it, then waits for an approval before Prod', () => {
    const { stack, beta, prod } = placeholders;
    const template = Template.fromStack(stack);
    const [pipeline] = Object.values(template.findResources('AWS::CodePipeline::Pipeline')) as Array<{
      Properties: { Stages: Array<{ Name: string; Actions: Array<{ Name: string; ActionTypeId: { Category: string; Provider: string }; RunOrder?: number }> }> };
    }>;
    const stages = pipeline!.Properties.Stages;
    expect(stages.map((stage) => stage.Name)).toEqual(expect.arrayContaining(['Source', 'Build', 'UpdatePipeline', 'Beta', 'Prod']));
    const names = stages.map((stage) => stage.Name);
    expect(names.indexOf('Beta')).toBeLessThan(names.indexOf('Prod'));
    const betaActions = stages.find((stage) => stage.Name === 'Beta')!.Actions;
    const prodActions = stages.find((stage) => stage.Name === 'Prod')!.Actions;
    // Beta: its three stacks deployed, then the smoke check.
    const smoke = betaActions.find((action) => action.Name === 'Smoke')!;
    expect(smoke.ActionTypeId).toMatchObject({ Category: 'Build', Provider: 'CodeBuild' });
    expect(Math.max(...betaActions.filter((action) => action.ActionTypeId.Category === 'Deploy').map((action) => action.RunOrder ?? 1))).toBeLessThan(smoke.RunOrder!);
    // Prod: the approval comes before any of its deployments.
    const approval = prodActions.find((action) => action.ActionTypeId.Category === 'Approval')!;
    expect(approval.Name).toBe('PromoteToProd');
    for (const action of prodActions.filter((a) => a.ActionTypeId.Category === 'Deploy')) expect(action.RunOrder).toBeGreaterThan(approval.RunOrder ?? 1);
    // The synth step runs the tests; every step on Node 24, whatever its image has.
    const projects = Object.values(template.findResources('AWS::CodeBuild::Project')) as Array<{ Properties: { Source: { BuildSpec?: string } } }>;
    const build = JSON.stringify(projects);
    expect(build).toContain('bash .ci/run');
    const stepCommands = projects.flatMap((project) => (project.Properties.Source.BuildSpec ? [JSON.parse(project.Properties.Source.BuildSpec).phases?.build?.commands as string[]] : []));
    const ourSteps = stepCommands.filter((commands) => commands.some((line) => line.includes('npm ')));
    expect(ourSteps).toHaveLength(2);
    for (const commands of ourSteps) expect(commands[0]).toBe('. .ci/use-node24');
    // Beta makes its own smoke key: the step reads it from the stage's secret, named by Beta's output, and may read only such secrets, in Beta's account.
    const smokeCommands = ourSteps.find((commands) => commands.some((line) => line.includes('npm run smoke')))!;
    expect(smokeCommands).toContain('npm run smoke -- --url "$STORE_API_URL" --key-secret "$STORE_SMOKE_KEY_SECRET"');
    Template.fromStack(beta.store.dataStack).hasOutput('SmokeKeySecretArn', {});
    const smokeReads = Object.values(template.findResources('AWS::IAM::Policy'))
      .flatMap((policy: any) => policy.Properties.PolicyDocument.Statement)
      .filter((statement: any) => statement.Action === 'secretsmanager:GetSecretValue');
    expect(smokeReads).toEqual([
      expect.objectContaining({ Resource: expect.objectContaining({ 'Fn::Join': expect.arrayContaining([expect.arrayContaining([':secretsmanager:eu-west-1:111111111111:secret:SmokeKey*'])]) }) }),
    ]);
    // Beta is disposable (all at once), Prod is not (canary).
    const configs = (stage: typeof beta) =>
      new Set(
        [stage.store.dataStack, stage.store.routesStack].flatMap((s) =>
          Object.values(Template.fromStack(s).findResources('AWS::CodeDeploy::DeploymentGroup')).map((group) =>
            JSON.stringify((group as { Properties: { DeploymentConfigName: unknown } }).Properties.DeploymentConfigName),
          ),
        ),
      );
    expect([...configs(beta)]).toEqual(['"CodeDeployDefault.LambdaAllAtOnce"']);
    expect([...configs(prod)]).toEqual([expect.stringContaining('Canary10Percent5Minutes')]);
  });

  it('is a V2 pipeline whose synth step passes on the context it was set up with, so that its self-update keeps it', () => {
    const context = SET_UP;
    const { stack } = setUp;
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::CodePipeline::Pipeline', { PipelineType: 'V2' });
    const projects = Object.values(template.findResources('AWS::CodeBuild::Project')) as Array<{ Properties: { Source: { BuildSpec?: string } } }>;
    const commands = projects.flatMap((project) => (project.Properties.Source.BuildSpec ? (JSON.parse(project.Properties.Source.BuildSpec).phases?.build?.commands ?? []) : [])) as string[];
    const command = commands.find((line) => line.startsWith('npm run synth:pipeline'))!;
    // The command's words as a shell reads them: each -c key=value, unquoted.
    const words = spawnSync('bash', ['-c', `printf '%s\\n' ${command.replace('npm run synth:pipeline --', '')}`], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n');
    const passed = Object.fromEntries(words.filter((word) => word !== '-c').map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]));
    expect(passed).toMatchObject(context);
    expect(pipelineContext((key) => passed[key])).toEqual(pipelineContext((key) => context[key as keyof typeof context]));
  });

  it('lets its source use a codeconnections connection by that service prefix, and keys its artifacts when the stages are in other accounts', () => {
    const template = Template.fromStack(setUp.stack);
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    expect(policies).toContain('codeconnections:UseConnection');
    expect(Object.keys(template.findResources('AWS::KMS::Key')).length).toBeGreaterThan(0);
    expect(Object.keys(Template.fromStack(placeholders.stack).findResources('AWS::KMS::Key'))).toEqual([]);
  });

  it("lets the smoke step read Beta's smoke key when Beta is in an account of its own: the secret sealed by a key of Beta's that the pipeline's account may use through Secrets Manager", () => {
    const { stack, beta } = setUp;
    const data = Template.fromStack(beta.store.dataStack);
    const [[smokeId, smoke]] = Object.entries(data.findResources('AWS::SecretsManager::Secret')).filter(([id]) => id.startsWith('SmokeKey')) as [[string, any]];
    const [keyId] = Object.keys(data.findResources('AWS::KMS::Key')).filter((id) => id.startsWith('SmokeKeyKey'));
    expect(smoke.Properties.KmsKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    const pipelineAccount = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::222222222222:root']] };
    data.hasResourceProperties('AWS::SecretsManager::ResourcePolicy', {
      SecretId: { Ref: smokeId },
      ResourcePolicy: { Statement: [Match.objectLike({ Action: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'], Principal: { AWS: pipelineAccount } })] },
    });
    const keyPolicy = JSON.stringify(data.findResources('AWS::KMS::Key')[keyId!]!.Properties.KeyPolicy);
    expect(keyPolicy).toContain(':iam::222222222222:root');
    expect(keyPolicy).toContain('secretsmanager.eu-central-1.amazonaws.com');
    // The step, in the pipeline's account, may decrypt in Beta's account through Secrets Manager only.
    const decrypts = Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy'))
      .flatMap((policy: any) => policy.Properties.PolicyDocument.Statement)
      .filter((statement: any) => statement.Action === 'kms:Decrypt' && JSON.stringify(statement.Resource).includes(':444444444444:key/*'));
    expect(decrypts).toEqual([expect.objectContaining({ Condition: { StringEquals: { 'kms:ViaService': 'secretsmanager.eu-central-1.amazonaws.com' } } })]);
  });
});
