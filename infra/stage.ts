/**
 * `StoreApiStage`: the store as a CDK Stage, for a CDK Pipelines app (or any app) to deploy as one
 * unit. The AwsSolutions checks are applied inside it, so an app that embeds it keeps them: an
 * unacknowledged finding in the store fails the app's synth (infra/nag-findings.ts says why each
 * is acknowledged). They check this stage alone, never the embedding app's own stacks (its
 * pipeline): a validation plugin is handed the whole app, so this one narrows it to the stage.
 */
import { Stage, Validations, type IPolicyValidationContext, type IPolicyValidationPlugin, type PolicyValidationPluginReport, type StageProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import { StoreApi, type StoreApiProps } from './store-api.js';

export interface StoreApiStageProps extends StageProps, Omit<StoreApiProps, 'env'> {}

/** The AwsSolutions pack, run on one stage's constructs. */
class StageChecks implements IPolicyValidationPlugin {
  readonly name = 'AwsSolutions';
  private readonly pack: AwsSolutionsChecks;

  constructor(private readonly stage: Stage) {
    this.pack = new AwsSolutionsChecks(stage);
  }

  validate(_context: IPolicyValidationContext): PolicyValidationPluginReport {
    return this.pack.validateScope(this.stage);
  }
}

/**
 * The checks run when the app synthesizes, by the app's aws-cdk-lib: an app that loads a second copy
 * of it (a linked checkout with a node_modules of its own) would never run this stage's, and its
 * synth would pass whatever the store holds. Such an app is refused, loudly.
 */
function requireTheAppsCdk(scope: Construct): void {
  const root = scope.node.root;
  if (Stage.isStage(root) && !(root instanceof Stage)) {
    throw new Error(
      'store-api/infra loads another copy of aws-cdk-lib than your app: its AwsSolutions checks would not run. ' +
        'Install store-api from its packed tarball (npm pack), or link it without a node_modules of its own, so that one aws-cdk-lib serves both.',
    );
  }
}

export class StoreApiStage extends Stage {
  /** The store: its stacks (`StoreApi-<stage id>`, `-Routes`, `-Api`) and its API's URL output. */
  readonly store: StoreApi;

  constructor(scope: Construct, id: string, props: StoreApiStageProps = {}) {
    requireTheAppsCdk(scope);
    super(scope, id, props);
    Validations.of(this).addPlugins(new StageChecks(this));
    this.store = new StoreApi(this, `StoreApi-${id}`, props);
  }
}
