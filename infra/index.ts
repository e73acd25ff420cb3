/**
 * The construct library (`store-api/infra`, docs/deploying.md): embed the store in a CDK app or pipeline.
 *
 *   import { StoreApiStage } from 'store-api/infra';
 *   pipeline.addStage(new StoreApiStage(app, 'Prod', { alarmEmail: 'ops@example.com' }));
 */
export { StoreApi, type StoreApiProps } from './store-api.js';
export { StoreApiStage, type StoreApiStageProps } from './stage.js';
export { DEPLOYMENTS, type Deployment } from './constructs/gradual-release.js';
