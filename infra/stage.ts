/**
 * `StoreApiStage`: the store as a CDK Stage, for a CDK Pipelines app (or any app) to deploy as one
 * unit. The AwsSolutions checks are applied inside it, so an app that embeds it keeps them: an
 * unacknowledged finding fails its synth (infra/nag-findings.ts says why each is acknowledged).
 */
import { Stage, Validations, type StageProps } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import { StoreApi, type StoreApiProps } from './store-api.js';

export interface StoreApiStageProps extends StageProps, Omit<StoreApiProps, 'env'> {}

export class StoreApiStage extends Stage {
  /** The store: its stacks (`StoreApi-<stage name>`, `-Routes`, `-Api`), its API's URL output. */
  readonly store: StoreApi;

  constructor(scope: Construct, id: string, props: StoreApiStageProps = {}) {
    super(scope, id, props);
    Validations.of(this).addPlugins(new AwsSolutionsChecks(this));
    this.store = new StoreApi(this, `StoreApi-${id}`, props);
  }
}
