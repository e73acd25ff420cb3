/**
 * One JSON line per request: who asked what, what it answered, how long it took and what it asked of
 * DynamoDB — and, in the same line, the request's metrics in CloudWatch Embedded Metric Format (no
 * SDK call: CloudWatch reads them from the log). Never a body, a header, a secret or a `sign`.
 */
import { countingUsage, type DatabaseUsage } from '../db/usage.js';
import { logMetrics, metricsDirective } from '../log.js';
import type { RouteDefinition } from '../routes.js';
import type { HttpContext, HttpEvent, HttpResponse } from './types.js';

export const METRICS_NAMESPACE = 'StoreApi';
/**
 * Each metric by route (the dashboard's), and by route, stage and the function version that answered
 * (what a release's alarms judge: the new version alone, in its own stage).
 */
export const METRIC_DIMENSIONS = [['Route'], ['Route', 'Stage', 'Version']] as const;

/** The metrics of a request, all counted per route (the dimension). */
const METRICS = [
  ['Requests', 'Count'],
  ['Status4xx', 'Count'],
  ['Status5xx', 'Count'],
  ['Latency', 'Milliseconds'],
  ['LoginFailures', 'Count'],
  ['LockOuts', 'Count'],
  ['IdempotentReplays', 'Count'],
  ['DynamoDBThrottles', 'Count'],
] as const;

type MetricName = (typeof METRICS)[number][0];

function metricsOf(route: RouteDefinition, response: HttpResponse, latency: number, usage: DatabaseUsage): Record<MetricName, number> {
  const status = response.statusCode ?? 200;
  const checksLogin = route.name === 'customers/check-login';
  return {
    Requests: 1,
    Status4xx: status >= 400 && status < 500 ? 1 : 0,
    Status5xx: status >= 500 ? 1 : 0,
    Latency: latency,
    LoginFailures: checksLogin && status === 404 ? 1 : 0,
    LockOuts: checksLogin && status === 429 ? 1 : 0,
    IdempotentReplays: response.headers?.['Idempotent-Replayed'] === 'true' ? 1 : 0,
    DynamoDBThrottles: usage.throttled,
  };
}

/**
 * Why a request was refused (4xx), as its line can say it without a value: the problem's kind and the
 * fields it names (`invalid-input: rows[1].price, title`), never their values or its detail, which may
 * hold an email.
 */
function whyRefused(response: HttpResponse): string | undefined {
  const status = response.statusCode ?? 200;
  if (status < 400 || status >= 500 || typeof response.body !== 'string') return undefined;
  try {
    const problem = JSON.parse(response.body) as { type?: unknown; errors?: { field?: unknown }[] };
    const kind = typeof problem.type === 'string' ? problem.type.replace(/^.*#problem-|^.*#/, '') : 'refused';
    const fields = (problem.errors ?? []).flatMap((error) => (typeof error.field === 'string' ? [error.field] : [])).slice(0, 5);
    return fields.length ? `${kind}: ${fields.join(', ')}` : kind;
  } catch {
    return undefined;
  }
}

/** Wraps a route's handler so that each of its requests writes its line. */
export function logged(route: RouteDefinition, handler: (event: HttpEvent, context: HttpContext) => Promise<HttpResponse>) {
  return async (event: HttpEvent, context: HttpContext): Promise<HttpResponse> => {
    const started = performance.now();
    const usage: DatabaseUsage = { requests: 0, capacity: 0, throttled: 0 };
    const response = await countingUsage(usage, () => handler(event, context));
    const latency = Math.round((performance.now() - started) * 10) / 10;
    // What a person reads first; the EMF directive last.
    const dimensions = {
      Route: route.name,
      // The stage's name (the stack sets it) and the version Lambda runs; `local` and `$LATEST` elsewhere.
      Stage: process.env.STORE_STAGE ?? 'local',
      Version: process.env.AWS_LAMBDA_FUNCTION_VERSION ?? '$LATEST',
    };
    const refused = whyRefused(response);
    logMetrics(
      'request',
      {
        Route: route.name,
        requestId: context.awsRequestId,
        method: event.requestContext.http.method,
        path: event.rawPath,
        status: response.statusCode ?? 200,
        latencyMs: latency,
        dynamodbRequests: usage.requests,
        consumedCapacity: usage.capacity,
        ...(context.apiKey ? { apiKey: context.apiKey.apiKey, keyLabel: context.apiKey.label } : {}),
        ...(refused === undefined ? {} : { why: refused }),
      },
      {
        ...dimensions,
        ...metricsOf(route, response, latency, usage),
        ...metricsDirective(METRICS_NAMESPACE, METRICS, METRIC_DIMENSIONS),
      },
    );
    return response;
  };
}
