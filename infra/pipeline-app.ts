/** The example pipeline as a CDK app (infra/pipeline.ts): `npm run synth:pipeline -- --output DIR`. */
import { App } from 'aws-cdk-lib';
import { pipelineContext, storePipeline } from './pipeline.js';

const app = new App();
storePipeline(
  app,
  pipelineContext((key) => app.node.tryGetContext(key)),
);
