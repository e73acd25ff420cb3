/**
 * `npm start`'s console for people (lib/log.ts's lines as a terminal shows them): one line per
 * request (time, method, path, status, latency, route, the key's label), warnings and errors
 * marked and colored, and the background work (changes placed, webhooks' rounds) summed up in one
 * line at most every 10 s, only when it did something. No field is added that the JSON line does not
 * carry, so nothing secret either. When stdout is no terminal, or with STORE_LOG_FORMAT=json, the
 * JSON lines stay (what a log shipper reads); STORE_LOG_FORMAT=text asks for this one anyway.
 */
import type { Level, LogWriter } from '../log.js';

/** Background lines summed up rather than printed, by message: what each adds to the summary. */
const SUMMED: Record<string, { field: string; say: (count: number) => string }> = {
  'changes placed': { field: 'Placed', say: (n) => `${n} change${n === 1 ? '' : 's'} placed in the feed` },
  'webhooks round': { field: 'DueJobs', say: (n) => `${n} webhook job${n === 1 ? '' : 's'} due` },
  // A delivered one (a failed one is a warning, shown on its own line).
  delivery: { field: 'Deliveries', say: (n) => `${n} webhook deliver${n === 1 ? 'y' : 'ies'} made` },
};
const SUMMARY_MS = 10_000;
/** Fields a person does not read: the metrics block and the metrics themselves (the JSON line keeps them). */
const HIDDEN = new Set(['_aws', 'Requests', 'Status4xx', 'Status5xx', 'Latency', 'LoginFailures', 'LockOuts', 'IdempotentReplays', 'DynamoDBThrottles', 'Route', 'requestId', 'apiKey']);

export interface ConsoleOptions {
  write: (line: string) => void;
  color: boolean;
  now?: () => Date;
}

export function consoleWriter({ write, color, now = () => new Date() }: ConsoleOptions): LogWriter {
  const paint = (code: number, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const time = () => now().toISOString().slice(11, 19);
  const byLevel = (level: Level, text: string) => (level === 'error' ? paint(31, text) : level === 'warn' ? paint(33, text) : text);
  const rest = (fields: Record<string, unknown>) =>
    Object.entries(fields)
      .filter(([name]) => !HIDDEN.has(name))
      .map(([name, value]) => `${name}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join(' ');

  const sums = new Map<string, number>();
  let lastSummary = 0;
  let pending: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(pending);
    pending = undefined;
    const parts = [...sums].flatMap(([message, n]) => {
      const summed = SUMMED[message];
      return summed && n > 0 ? [summed.say(n)] : [];
    });
    sums.clear();
    lastSummary = now().getTime();
    if (parts.length) write(`${time()}  ${paint(2, `background: ${parts.join(', ')}`)}`);
  };

  return (level, message, fields) => {
    const summed = SUMMED[message];
    if (summed && level === 'info') {
      sums.set(message, (sums.get(message) ?? 0) + Number(fields[summed.field] ?? 0));
      const wait = lastSummary + SUMMARY_MS - now().getTime();
      if (wait <= 0) flush();
      else pending ??= setTimeout(flush, wait).unref();
      return;
    }
    if (message === 'request') {
      const status = Number(fields.status);
      const shown = paint(status >= 500 ? 31 : status >= 400 ? 33 : 32, String(status));
      const key = fields.keyLabel === undefined ? '' : `  key "${String(fields.keyLabel)}"`;
      const why = fields.why === undefined ? '' : `  ${paint(33, String(fields.why))}`;
      write(`${time()}  ${String(fields.method).padEnd(6)} ${String(fields.path)}  ${shown}${why}  ${Number(fields.latencyMs).toFixed(1)} ms  ${paint(2, String(fields.Route))}${key}`);
      return;
    }
    const { keyLabel: _, ...others } = fields;
    const mark = level === 'info' ? '' : `${level.toUpperCase()}  `;
    write(`${time()}  ${byLevel(level, `${mark}${message}`)}${Object.keys(others).length ? `  ${rest(others)}` : ''}`);
  };
}

/** The writer `npm start` uses: this console in a terminal (or with STORE_LOG_FORMAT=text), else none (JSON lines). */
export function peopleConsole(): LogWriter | undefined {
  const format = process.env.STORE_LOG_FORMAT;
  if (format === 'json' || (format !== 'text' && !process.stdout.isTTY)) return undefined;
  return consoleWriter({ write: (line) => process.stdout.write(`${line}\n`), color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR });
}
