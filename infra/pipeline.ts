/**
 * An example CDK Pipelines app that ships the store (docs/deploying.md): the source from a CodeStar /
 * CodeConnections connection, a synth step that runs the tests (`.ci/run`: npm ci, npm test) and
 * synthesizes, a disposable `Beta` stage released all at once with a post-deploy smoke check
 * (`npm run smoke` against its URL, with the key Beta makes for it), a manual approval, then
 * `Prod`, released by canary. Every step runs on Node 24 (.ci/use-node24, whatever the image has).
 * Everything it needs comes from context, with placeholders that let it
 * synthesize offline (`npm run synth:pipeline -- --output DIR`):
 *   account, region       where the pipeline lives, and both stages unless told (placeholders: 111111111111, eu-west-1)
 *   betaAccount, prodAccount  the stages' accounts, when apart from the pipeline's (cross-account
 *                         deploys then use KMS keys for the artifacts: `crossAccountKeys`)
 *   repo, branch          the source: owner/name and branch (placeholders: my-org/store-api, main)
 *   connectionArn         the connection to the repository host (a placeholder ARN)
 *   alarmEmail            where Prod's alarms notify
 * The synth step runs the app with the same context it was synthesized with, so that the pipeline's
 * self-update deploys the pipeline as it was set up, never the placeholders.
 */
import { present } from '../lib/present.js';
import { ArnFormat, Stack, type App } from 'aws-cdk-lib';
import { LinuxBuildImage } from 'aws-cdk-lib/aws-codebuild';
import { PipelineType } from 'aws-cdk-lib/aws-codepipeline';
import { PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import { CodeBuildStep, CodePipeline, CodePipelineSource, ManualApprovalStep, ShellStep } from 'aws-cdk-lib/pipelines';
import { StoreApiStage } from './stage.js';

export interface PipelineContext {
  account: string;
  region: string;
  repo: string;
  branch: string;
  connectionArn: string;
  alarmEmail?: string | undefined;
  betaAccount: string;
  prodAccount: string;
}

/** Every step's first command: Node 24 first on PATH (buildspec 0.2 keeps the shell from one command to the next). */
const NODE_24 = '. .ci/use-node24';

/** The context keys a pipeline is set up with: what its synth step passes on. */
const CONTEXT_KEYS = ['account', 'region', 'repo', 'branch', 'connectionArn', 'alarmEmail', 'betaAccount', 'prodAccount'] as const;
const quoted = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/** The synth command with the pipeline's own context: `npm run synth:pipeline -- -c account='…' …`. */
export const synthCommand = (context: PipelineContext): string =>
  ['npm run synth:pipeline --', ...CONTEXT_KEYS.flatMap((key) => (context[key] === undefined ? [] : [`-c ${key}=${quoted(String(context[key]))}`]))].join(' ');

/** The context's values, or the placeholders that let the app synthesize offline. */
export function pipelineContext(context: (key: string) => unknown): PipelineContext {
  const text = (key: string) => (context(key) === undefined ? undefined : String(context(key)));
  const account = text('account') ?? '111111111111';
  const region = text('region') ?? 'eu-west-1';
  return {
    account,
    region,
    repo: text('repo') ?? 'my-org/store-api',
    branch: text('branch') ?? 'main',
    connectionArn: text('connectionArn') ?? `arn:aws:codeconnections:${region}:${account}:connection/00000000-0000-0000-0000-000000000000`,
    alarmEmail: text('alarmEmail'),
    betaAccount: text('betaAccount') ?? account,
    prodAccount: text('prodAccount') ?? account,
  };
}

/** The pipeline stack, with its Beta and Prod stages. */
export function storePipeline(app: App, context: PipelineContext): { stack: Stack; pipeline: CodePipeline; beta: StoreApiStage; prod: StoreApiStage } {
  const env = { account: context.account, region: context.region };
  const stack = new Stack(app, 'StoreApiPipeline', { env, description: 'store-api: the pipeline that tests, synthesizes and ships it' });
  const crossAccount = context.betaAccount !== context.account || context.prodAccount !== context.account;
  const pipeline = new CodePipeline(stack, 'Pipeline', {
    pipelineType: PipelineType.V2,
    crossAccountKeys: crossAccount,
    codeBuildDefaults: { buildEnvironment: { buildImage: LinuxBuildImage.STANDARD_7_0 } },
    synth: new ShellStep('Synth', {
      input: CodePipelineSource.connection(context.repo, context.branch, { connectionArn: context.connectionArn }),
      // .ci/run installs what the tests need (Java, Chromium, MariaDB) and runs `npm ci && npm test`.
      commands: [NODE_24, 'bash .ci/run', synthCommand(context)],
    }),
  });
  // Beta makes its own smoke key (kept in a secret of its own), so the check works from its first deploy, on a fresh table.
  // In an account of its own, it lets the pipeline's account read that key (its step runs there).
  const beta = new StoreApiStage(app, 'Beta', {
    env: { account: context.betaAccount, region: context.region },
    disposable: true,
    smokeKey: true,
    ...(context.betaAccount !== context.account ? { smokeKeyReaders: [context.account] } : {}),
  });
  pipeline.addStage(beta, {
    post: [
      new CodeBuildStep('Smoke', {
        envFromCfnOutputs: { STORE_API_URL: beta.store.apiUrlOutput, STORE_SMOKE_KEY_SECRET: present(beta.store.smokeKeySecretOutput, "Beta's smoke key (made with smokeKey: true)") },
        // The secret CloudFormation named after its logical id (SmokeKey…), in Beta's account (and, there, its key, through Secrets Manager).
        rolePolicyStatements: [
          new PolicyStatement({
            actions: ['secretsmanager:GetSecretValue'],
            resources: [Stack.of(beta.store.dataStack).formatArn({ service: 'secretsmanager', resource: 'secret', resourceName: 'SmokeKey*', arnFormat: ArnFormat.COLON_RESOURCE_NAME })],
          }),
          ...(context.betaAccount !== context.account
            ? [
                new PolicyStatement({
                  actions: ['kms:Decrypt'],
                  resources: [Stack.of(beta.store.dataStack).formatArn({ service: 'kms', resource: 'key', resourceName: '*' })],
                  conditions: { StringEquals: { 'kms:ViaService': `secretsmanager.${context.region}.amazonaws.com` } },
                }),
              ]
            : []),
        ],
        commands: [NODE_24, 'npm ci', 'npm run smoke -- --url "$STORE_API_URL" --key-secret "$STORE_SMOKE_KEY_SECRET"'],
      }),
    ],
  });
  const prod = new StoreApiStage(app, 'Prod', { env: { account: context.prodAccount, region: context.region }, ...(context.alarmEmail ? { alarmEmail: context.alarmEmail } : {}) });
  pipeline.addStage(prod, { pre: [new ManualApprovalStep('PromoteToProd', { comment: 'Beta passed its smoke check: release to Prod (canary, rolled back on alarm)?' })] });
  pipeline.buildPipeline();
  // The source's role may use the connection by the ARN's own service prefix: CDK grants only
  // `codestar-connections:UseConnection`, and a connection made since is `arn:aws:codeconnections:…`.
  const service = context.connectionArn.split(':')[2];
  if (service === 'codeconnections') {
    const sourceRoles = pipeline.pipeline.node.findAll().filter((construct): construct is Role => construct instanceof Role && construct.node.path.includes('/Source/'));
    for (const role of sourceRoles) role.addToPrincipalPolicy(new PolicyStatement({ actions: ['codeconnections:UseConnection'], resources: [context.connectionArn] }));
  }
  return { stack, pipeline, beta, prod };
}
