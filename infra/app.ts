/**
 * The CDK app: the store (infra/store-api.ts) with the settings of its context (infra/context.ts),
 * checked by the AwsSolutions pack on every synth. It needs no AWS account to synthesize: the
 * stacks are environment-agnostic and do no lookups.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { storeFromContext } from './context.js';
import { StoreApi } from './store-api.js';

const app = new App();
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
const { name, props } = storeFromContext((key) => app.node.tryGetContext(key));
new StoreApi(app, name, props);
