/**
 * The example pipeline (infra/pipeline.ts), synthesized offline as `npm run synth:pipeline` does:
 * a synth step that runs the tests, a Beta stage with its smoke check after it, a manual approval,
 * then Prod; the stages' own checks pass inside it.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { pipelineContext, storePipeline } from '../infra/pipeline.js';

describe('the example pipeline', () => {
  it('tests and synthesizes, deploys Beta all at once and smoke-checks it, then waits for an approval before Prod', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const { stack, beta, prod } = storePipeline(
      app,
      pipelineContext(() => undefined),
    );
    app.synth();
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
    // The synth step runs the tests.
    const build = JSON.stringify(template.findResources('AWS::CodeBuild::Project'));
    expect(build).toContain('bash .ci/run');
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
});
