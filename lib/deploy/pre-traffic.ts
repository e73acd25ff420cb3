/**
 * The pre-traffic hook of every gradual release (docs/deploying.md): CodeDeploy calls it before it moves
 * any traffic to a function's new version. It finds which function and version the deployment is
 * about (its AppSpec), invokes that version with its route's `events/` sample signed with the stage's
 * release-check key (lib/deploy/stage-keys.ts), and reports the lifecycle event Succeeded only when
 * the answer is the route's: so a build that cannot start, cannot read its keys, or answers a 5xx,
 * never serves a request, and CodeDeploy rolls the alias back.
 *
 * The release-check key views every resource and may change none, so the hook never writes in a
 * live table. The route's answer is therefore its success status for a route the key may call (a
 * read of one record may find it absent from this table: its 404 problem), and, for a write (or a
 * webhook route, a superadmin's), the 403 problem of an access the key lacks: the version has then
 * read the key from DynamoDB, opened its sealed secure key and verified the signature. A 401 (the
 * key unknown to the version) fails the release. Its AWS clients come from the Lambda runtime's own SDK.
 */
import { endpointConfig } from '../aws-endpoint.js';
import { allows } from '../api-keys/access.js';
import { signBody } from '../api-keys/signature.js';
import type { Permission } from '../routes.js';
import { STAGE_KEYS, type StageKey } from './stage-keys.js';

export interface PreTrafficEvent {
  DeploymentId: string;
  LifecycleEventHookExecutionId: string;
}

/** A route's `events/` sample: an API Gateway v2 event, of which the hook reads and signs these. */
export interface Sample {
  headers?: Record<string, string | undefined>;
  queryStringParameters?: Record<string, string | undefined>;
  rawQueryString?: string;
  pathParameters?: Record<string, string | undefined>;
  body?: string;
  isBase64Encoded?: boolean;
}

/** What the hook knows of a route: its name, its success status, its permission, and its sample. */
export interface HookRoute {
  route: string;
  status: number;
  permission: Permission | null;
  sample: Sample;
}

interface LambdaAnswer {
  statusCode?: number;
  headers?: Record<string, string>;
}

/** The sample as the release-check key sends it: its key in `Authorization`, its body signed (`sign`). */
export function signedSample(sample: Sample, key: StageKey): Sample {
  const body = Buffer.from(sample.body ?? '', sample.isBase64Encoded ? 'base64' : 'utf8');
  const query = { ...sample.queryStringParameters, sign: signBody(key.secureKey, body) };
  const rawQueryString = new URLSearchParams(Object.entries(query).flatMap(([name, value]): Array<[string, string]> => (value === undefined ? [] : [[name, value]]))).toString();
  return { ...sample, headers: { ...sample.headers, authorization: `Token ${key.apiKey}` }, queryStringParameters: query, rawQueryString };
}

/** The function and version a Lambda deployment's AppSpec moves its alias to. */
function targetOf(appSpec: string): { name: string; version: string } {
  const spec = JSON.parse(appSpec) as { Resources?: Array<Record<string, { Properties?: { Name?: string; TargetVersion?: string } }>> };
  const properties = Object.values(spec.Resources?.[0] ?? {})[0]?.Properties;
  if (!properties?.Name || !properties.TargetVersion) throw new Error('the deployment has no Lambda target in its AppSpec');
  return { name: properties.Name, version: properties.TargetVersion };
}

/** Why an answer is not the route's to the release-check key, or undefined when it is. */
function refusalOf(route: HookRoute, answer: LambdaAnswer | undefined, functionError: string | undefined): string | undefined {
  if (functionError) return `${route.route}: the new version failed (${functionError})`;
  const status = answer?.statusCode;
  const problem = answer?.headers?.['Content-Type'] === 'application/problem+json';
  if (!route.permission || allows(STAGE_KEYS.releaseCheck, route.permission.resource, route.permission.access)) {
    if (status === route.status) return undefined;
    const namesRecord = Object.keys(route.sample.pathParameters ?? {}).length > 0;
    if (status === 404 && problem && namesRecord) return undefined;
    return `${route.route}: the new version answered ${status ?? 'nothing'} to its sample, not ${route.status}`;
  }
  if (status === 403 && problem) return undefined;
  return `${route.route}: the new version answered ${status ?? 'nothing'} to its sample, not the 403 of an access the release-check key lacks`;
}

/** The file of a route's `events/` sample (`tax-rules/get` → `tax-rules-get.json`), shipped beside the hook's bundle. */
export const sampleFileOf = (route: string): string => `${route.replace('/', '-')}.json`;

/**
 * Runs the check of one deployment and reports it to CodeDeploy; what it found, for the log. The
 * version's route is read from its own configuration (`STORE_ROUTE`); `routeNamed` gives what the
 * hook knows of it (its status, whether it is protected, its sample).
 */
export async function checkDeployment(
  event: PreTrafficEvent,
  routeNamed: (route: string) => Promise<HookRoute | undefined>,
  releaseCheckKey: () => Promise<StageKey>,
): Promise<{ status: 'Succeeded' | 'Failed'; reason?: string }> {
  const codedeploySdk = await import('@aws-sdk/client-codedeploy');
  const lambdaSdk = await import('@aws-sdk/client-lambda');
  const codedeploy = new codedeploySdk.CodeDeployClient(endpointConfig(process.env.CODEDEPLOY_ENDPOINT));
  const lambda = new lambdaSdk.LambdaClient(endpointConfig(process.env.LAMBDA_ENDPOINT));
  let reason: string | undefined;
  try {
    const { deploymentInfo } = await codedeploy.send(new codedeploySdk.GetDeploymentCommand({ deploymentId: event.DeploymentId }));
    const target = targetOf(deploymentInfo?.revision?.appSpecContent?.content ?? '{}');
    const configuration = await lambda.send(new lambdaSdk.GetFunctionConfigurationCommand({ FunctionName: target.name, Qualifier: target.version }));
    const name = configuration.Environment?.Variables?.STORE_ROUTE;
    const route = name ? await routeNamed(name) : undefined;
    if (!route) throw new Error(`the function ${target.name} names no route the hook knows (${name ?? 'no STORE_ROUTE'})`);
    const invoked = await lambda.send(
      new lambdaSdk.InvokeCommand({ FunctionName: target.name, Qualifier: target.version, Payload: new TextEncoder().encode(JSON.stringify(signedSample(route.sample, await releaseCheckKey()))) }),
    );
    const payload = invoked.Payload?.length ? (JSON.parse(new TextDecoder().decode(invoked.Payload)) as LambdaAnswer) : undefined;
    reason = refusalOf(route, payload, invoked.FunctionError);
  } catch (error) {
    reason = `the check could not run: ${(error as Error).name}: ${(error as Error).message}`;
  }
  const status = reason === undefined ? 'Succeeded' : 'Failed';
  try {
    await codedeploy.send(
      new codedeploySdk.PutLifecycleEventHookExecutionStatusCommand({ deploymentId: event.DeploymentId, lifecycleEventHookExecutionId: event.LifecycleEventHookExecutionId, status }),
    );
  } finally {
    codedeploy.destroy();
    lambda.destroy();
  }
  return { status, ...(reason ? { reason } : {}) };
}
