/**
 * One-line JSON logs for CloudWatch. Callers pass only what is safe to log: never a body, a header,
 * a password, a hash or a key (the error middleware logs error names and messages of 5xx only).
 */
type Level = 'info' | 'warn' | 'error';

export function log(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (process.env.STORE_LOG_LEVEL === 'silent') return;
  const line = JSON.stringify({ level, message, ...fields, time: new Date().toISOString() });
  (level === 'error' ? console.error : console.log)(line);
}
