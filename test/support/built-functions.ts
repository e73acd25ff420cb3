/**
 * The deployed artifact, as users deploy it: the CDK app synthesized with its bundled assets, and
 * each function's asset run in a fresh Node process the way Lambda runs it (the template's Handler
 * and Environment, deploy-time values supplied as `sam local invoke --env-vars` supplies them).
 * Used by the artifact test and by `npm run bench`.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { functionLogicalId } from '../../infra/function-ids.js';
import { StoreApi } from '../../infra/store-api.js';
import { routes, type RouteDefinition } from '../../lib/routes.js';

export interface BuiltFunction {
  route: RouteDefinition;
  logicalId: string;
  /** The asset's directory: what Lambda unpacks into /var/task. */
  directory: string;
  /** The template's Handler, `<file>.<export>`. */
  handler: string;
  /** The bundle file the handler names. */
  file: string;
}

const STACK = 'StoreApi-artifact';

export function synthesizeFunctions(outdir: string): { functions: BuiltFunction[]; template: { Resources: Record<string, any> }; dataTemplate: { Resources: Record<string, any> }; assembly: string } {
  const app = new App({ outdir });
  const store = new StoreApi(app, STACK);
  const assembly = app.synth();
  // The route functions are in the routes stacks (infra/store-api.ts): their resources, as one template.
  const template = {
    Resources: Object.assign({}, ...store.routesStacks.map((stack) => (assembly.getStackByName(stack.stackName).template as { Resources: Record<string, any> }).Resources)) as Record<string, any>,
  };
  // The background functions and the migrations are in the data stack.
  const dataTemplate = assembly.getStackByName(STACK).template as { Resources: Record<string, any> };
  const functions = routes.map((route) => {
    const logicalId = functionLogicalId(template, route.name);
    const resource = template.Resources[logicalId]!;
    const directory = path.join(assembly.directory, `asset.${String(resource.Properties.Code.S3Key).replace(/\.zip$/, '')}`);
    const handler = String(resource.Properties.Handler);
    return { route, logicalId, directory, handler, file: path.join(directory, `${handler.split('.')[0]}.mjs`) };
  });
  return { functions, template, dataTemplate, assembly: assembly.directory };
}

/** What a fresh process reports: its answer to the event, and how long import and invoke took. */
export interface Invocation {
  response?: { statusCode?: number; headers?: Record<string, string>; body?: string };
  importMs: number;
  invokeMs?: number;
}

const runner = path.join(path.dirname(fileURLToPath(import.meta.url)), 'run-built-function.mjs');

/** Environment of a Lambda: region and credentials, as the runtime sets them, and nothing of ours. */
const lambdaBaseEnvironment = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});

/**
 * Runs a built function in a fresh Node process: loads `file` (timed), then, given an event file,
 * invokes the handler's export with it and a Lambda-like context.
 */
export function runBuilt(file: string, handlerExport: string, environment: Record<string, string>, eventFile?: string): Promise<Invocation> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [runner, file, handlerExport, ...(eventFile ? [eventFile] : [])], {
      env: { ...lambdaBaseEnvironment(), ...environment },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        if (code !== 0) throw new Error(`exited with ${code}`);
        resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '') as Invocation);
      } catch (error) {
        reject(new Error(`${file}: ${(error as Error).message}: ${err}${out.slice(0, 2_000)}`));
      }
    });
  });
}
