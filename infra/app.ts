/**
 * The CDK app; its context keys are read by infra/context.ts. It needs no AWS account to
 * synthesize: the stack is environment-agnostic and does no lookups.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { stackFromContext } from './context.js';
import { StoreApiStack } from './store-api-stack.js';

const app = new App();
// The AwsSolutions checks run on every synth: an unacknowledged finding fails it (store-api-stack.ts says why each is acknowledged).
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
const { stackName, props } = stackFromContext((key) => app.node.tryGetContext(key));
new StoreApiStack(app, stackName, props);
