/**
 * The push's one line per batch, in the request log's style, and a CloudWatch Embedded Metric Format
 * document: events published, refusals retried, records failed (their keys kept as dead letters, or
 * the batch retried by the stream), and the lag from a change's commit to its event. Never an event's content.
 */
import { log, metricsDirective } from '../log.js';

/** The namespace of the push's metrics (the API's own are in lib/http/request-log.ts). */
export const EVENTS_NAMESPACE = 'StoreApi/Events';

export interface BatchOutcome {
  records: number;
  published: number;
  refusals: number;
  failed: number;
  lagMs: number;
}

const METRICS: ReadonlyArray<[keyof BatchOutcome, string, string]> = [
  ['published', 'Published', 'Count'],
  ['refusals', 'Refusals', 'Count'],
  ['failed', 'Failed', 'Count'],
  ['lagMs', 'Lag', 'Milliseconds'],
];

export function logBatch(outcome: BatchOutcome): void {
  log(outcome.failed > 0 ? 'warn' : 'info', 'events', {
    ...outcome,
    ...Object.fromEntries(METRICS.map(([field, name]) => [name, outcome[field]])),
    ...metricsDirective(
      EVENTS_NAMESPACE,
      METRICS.map(([, name, unit]) => [name, unit] as const),
    ),
  });
}
