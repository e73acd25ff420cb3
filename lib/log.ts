/**
 * One-line JSON logs, written as they are to stdout: with Lambda's JSON log format, lines that do
 * not come through `console` are kept whole, so that a line may also be a CloudWatch Embedded Metric
 * Format document (lib/http/request-log.ts). Callers pass only what is safe to log: never a body, a
 * header, a password, a hash, a key or a `sign`. STORE_LOG_LEVEL: `silent`, or `warn` for no info lines.
 */
export type Level = 'info' | 'warn' | 'error';

/** Where a log line goes: one JSON line on stdout (what Lambda and log shippers read), unless a process says otherwise. */
export type LogWriter = (level: Level, message: string, fields: Record<string, unknown>) => void;

const jsonLines: LogWriter = (level, message, fields) => process.stdout.write(`${JSON.stringify({ level, message, ...fields, time: new Date().toISOString() })}\n`);
let writer: LogWriter = jsonLines;

/** Makes this process write its log lines with `next` (`npm start` in a terminal: lib/local/console.ts); none: JSON lines again. */
export function useLogWriter(next: LogWriter | undefined): void {
  writer = next ?? jsonLines;
}

/** Whether STORE_LOG_LEVEL lets lines of `level` through. */
const wanted = (level: Level): boolean => {
  const at = process.env.STORE_LOG_LEVEL;
  return !(at === 'silent' || (at === 'warn' && level === 'info') || (at === 'error' && level !== 'error'));
};

export function log(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (wanted(level)) writer(level, message, fields);
}

/**
 * An info line that carries metrics (an Embedded Metric Format document: `metricsDirective`): whole
 * when info lines are wanted; else its metrics alone, in a line of their own, so that no log level
 * (`-c logLevel=WARN`) blinds the alarms that read them. `silent` (tests, benches) writes nothing.
 */
export function logMetrics(message: string, fields: Record<string, unknown>, metrics: Record<string, unknown>): void {
  if (wanted('info')) writer('info', message, { ...fields, ...metrics });
  else if (process.env.STORE_LOG_LEVEL !== 'silent') writer('info', 'metrics', metrics);
}

/**
 * The CloudWatch Embedded Metric Format directive of a log line: the line's fields named in
 * `metrics` become metrics of `namespace`, by the `dimensions` fields (none: one series), or by each
 * of several sets of them (each set its own series).
 */
export function metricsDirective(namespace: string, metrics: ReadonlyArray<readonly [name: string, unit: string]>, dimensions: readonly string[] | ReadonlyArray<readonly string[]> = []) {
  const sets = dimensions.length > 0 && Array.isArray(dimensions[0]) ? (dimensions as ReadonlyArray<readonly string[]>).map((set) => [...set]) : [[...(dimensions as readonly string[])]];
  return { _aws: { Timestamp: Date.now(), CloudWatchMetrics: [{ Namespace: namespace, Dimensions: sets, Metrics: metrics.map(([Name, Unit]) => ({ Name, Unit })) }] } };
}
