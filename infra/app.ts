/**
 * The CDK app. Context (cdk.json or -c):
 *   stage        name suffix of the stack (default "dev")
 *   disposable   "true" lets the table be destroyed with the stack (throwaway stages say so;
 *                without it the table is retained, with PITR and deletion protection)
 *   alarmEmail   an email the alarms notify (through an SNS topic); none without it
 *   logLevel     the functions' application log level (default INFO)
 *   corsOrigins  comma-separated origins; CORS is off without them
 * It needs no AWS account to synthesize: the stack is environment-agnostic and does no lookups.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { StoreApiStack } from './store-api-stack.js';

const app = new App();
// The AwsSolutions checks run on every synth: an unacknowledged finding fails it (store-api-stack.ts says why each is acknowledged).
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
const context = (key: string): string | undefined => app.node.tryGetContext(key) as string | undefined;
const stage = context('stage') ?? 'dev';
const corsOrigins = context('corsOrigins');

const alarmEmail = context('alarmEmail');
const LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
const logLevel = LOG_LEVELS.find((level) => level === context('logLevel')?.toUpperCase());
if (context('logLevel') && !logLevel) throw new Error(`-c logLevel must be one of ${LOG_LEVELS.join(', ')}`);
new StoreApiStack(app, `StoreApi-${stage}`, {
  disposable: String(context('disposable')) === 'true',
  ...(alarmEmail ? { alarmEmail } : {}),
  ...(logLevel ? { logLevel } : {}),
  ...(corsOrigins ? { corsOrigins: corsOrigins.split(',') } : {}),
});
