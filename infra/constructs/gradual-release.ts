import { Alias, type Function as LambdaFunction, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { LambdaDeploymentConfig, LambdaDeploymentGroup, type ILambdaApplication, type ILambdaDeploymentConfig } from 'aws-cdk-lib/aws-codedeploy';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';

/** How a release shifts an alias to its new version (`-c deployment=…`). */
export const DEPLOYMENTS = ['canary', 'linear', 'all-at-once'] as const;
export type Deployment = (typeof DEPLOYMENTS)[number];

/** CodeDeploy's configuration for each way (CANARY_10PERCENT_5MINUTES, as SAM's `DeploymentPreference` defaults). */
const deploymentConfigOf = (deployment: Deployment): ILambdaDeploymentConfig =>
  ({
    canary: LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES,
    linear: LambdaDeploymentConfig.LINEAR_10PERCENT_EVERY_1MINUTE,
    'all-at-once': LambdaDeploymentConfig.ALL_AT_ONCE,
  })[deployment];

/** The alias every caller of a function invokes, which each release moves. */
/** The alias every caller invokes (the API's integrations, mappings, schedules). */
export const LIVE = 'live';

export interface GradualReleaseOptions {
  /** The stack's CodeDeploy application and the role its deployment groups share (one role, not one per function). */
  readonly application: ILambdaApplication;
  readonly role: IRole;
  readonly deployment: Deployment;
  /** What stops a release and rolls it back. */
  readonly alarms: IAlarm[];
  /** Invoked by CodeDeploy before any traffic moves; fails the release when its check fails. */
  readonly preTraffic?: IFunction;
  /** What must be done before the alias may move (the migrations of the table). */
  readonly after?: IConstruct[];
}

/**
 * A function released gradually and reversibly, as SAM's `DeploymentPreference` does: its current
 * version behind the `live` alias, which CodeDeploy shifts to each new version (canary, linear or
 * all at once), after the pre-traffic hook, stopping and rolling back when an alarm fires. Callers
 * (API integrations, stream mappings, schedules) invoke the alias, never `$LATEST`.
 */
export function releaseGradually(fn: LambdaFunction, options: GradualReleaseOptions): Alias {
  const alias = new Alias(fn, 'Live', { aliasName: LIVE, version: fn.currentVersion });
  new LambdaDeploymentGroup(fn, 'Release', {
    application: options.application,
    role: options.role,
    alias,
    deploymentConfig: deploymentConfigOf(options.deployment),
    alarms: options.alarms,
    ...(options.preTraffic ? { preHook: options.preTraffic } : {}),
    autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
  });
  for (const before of options.after ?? []) alias.node.addDependency(before);
  return alias;
}
