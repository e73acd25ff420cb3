/**
 * The pre-traffic hook of every gradual release (CONTRACT §13): CodeDeploy calls it before it moves
 * any traffic to a function's new version. It finds which function and version the deployment is
 * about (its AppSpec), invokes that version with its route's `events/` sample, and reports the
 * lifecycle event Succeeded only when the answer is the route's: so a build that cannot start, or
 * answers a 5xx, never serves a request, and CodeDeploy rolls the alias back.
 *
 * The route's answer is the route table's status, or, for a protected route, the 401 of an unknown
 * key: a deployed table never holds the samples' key (that would be a known credential), so the
 * sample is refused before it reads or writes anything; a 401 problem+json with `WWW-Authenticate:
 * Token` shows that the version starts, routes, reads its key from DynamoDB and answers. The hook
 * never writes in a live table. Its AWS clients come from the Lambda runtime's own SDK.
 */
import { endpointConfig } from '../aws-endpoint.js';

export interface PreTrafficEvent {
  DeploymentId: string;
  LifecycleEventHookExecutionId: string;
}

/** What the hook knows of a route: its name, its success status, whether it is protected, and its sample. */
export interface HookRoute {
  route: string;
  status: number;
  protected: boolean;
  sample: unknown;
}

interface LambdaAnswer {
  statusCode?: number;
  headers?: Record<string, string>;
}

/** The function and version a Lambda deployment's AppSpec moves its alias to. */
function targetOf(appSpec: string): { name: string; version: string } {
  const spec = JSON.parse(appSpec) as { Resources?: Array<Record<string, { Properties?: { Name?: string; TargetVersion?: string } }>> };
  const properties = Object.values(spec.Resources?.[0] ?? {})[0]?.Properties;
  if (!properties?.Name || !properties.TargetVersion) throw new Error('the deployment has no Lambda target in its AppSpec');
  return { name: properties.Name, version: properties.TargetVersion };
}

/** Why an answer is not the route's, or undefined when it is. */
function refusalOf(route: HookRoute, answer: LambdaAnswer | undefined, functionError: string | undefined): string | undefined {
  if (functionError) return `${route.route}: the new version failed (${functionError})`;
  const status = answer?.statusCode;
  if (status === route.status) return undefined;
  const unknownKey = route.protected && status === 401 && answer?.headers?.['WWW-Authenticate'] === 'Token' && answer.headers['Content-Type'] === 'application/problem+json';
  if (unknownKey) return undefined;
  return `${route.route}: the new version answered ${status ?? 'nothing'} to its sample, not ${route.status}`;
}

/** The file of a route's `events/` sample (`tax-rules/get` → `tax-rules-get.json`), shipped beside the hook's bundle. */
export const sampleFileOf = (route: string): string => `${route.replace('/', '-')}.json`;

/**
 * Runs the check of one deployment and reports it to CodeDeploy; what it found, for the log. The
 * version's route is read from its own configuration (`STORE_ROUTE`); `routeNamed` gives what the
 * hook knows of it (its status, whether it is protected, its sample).
 */
export async function checkDeployment(event: PreTrafficEvent, routeNamed: (route: string) => Promise<HookRoute | undefined>): Promise<{ status: 'Succeeded' | 'Failed'; reason?: string }> {
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
    const invoked = await lambda.send(new lambdaSdk.InvokeCommand({ FunctionName: target.name, Qualifier: target.version, Payload: new TextEncoder().encode(JSON.stringify(route.sample)) }));
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
