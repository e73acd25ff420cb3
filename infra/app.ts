/**
 * The CDK app. Context (cdk.json or -c):
 *   stage        name suffix of the stack (default "dev")
 *   disposable   "true" lets the table be destroyed with the stack (dev stages)
 *   corsOrigins  comma-separated origins; CORS is off without them
 * It needs no AWS account to synthesize: the stack is environment-agnostic and does no lookups.
 */
import { App } from 'aws-cdk-lib';
import { StoreApiStack } from './store-api-stack.js';

const app = new App();
const context = (key: string): string | undefined => app.node.tryGetContext(key) as string | undefined;
const stage = context('stage') ?? 'dev';
const corsOrigins = context('corsOrigins');

new StoreApiStack(app, `StoreApi-${stage}`, {
  disposable: String(context('disposable')) === 'true',
  ...(corsOrigins ? { corsOrigins: corsOrigins.split(',') } : {}),
});
