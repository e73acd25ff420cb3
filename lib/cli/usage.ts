/**
 * A command's failures, said as what they are (tooling, never bundled): one in how it was called (a
 * missing or unknown argument) with the usage text, so that the caller sees how to call it; one of
 * the run itself (a secret that does not open the table, a wrong MySQL password) by its message
 * alone, which the usage would only bury.
 */

/** How the command was called is at fault: its message is followed by the usage. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Whether `error` is about how the command was called: ours, node's argument parser's, or a URL that is none. */
export const isUsageError = (error: unknown): boolean => error instanceof UsageError || /^ERR_(PARSE_ARGS|INVALID_URL)/.test(String((error as { code?: unknown } | undefined)?.code ?? ''));

/**
 * What caused `error`, when it wraps another error: its name and first line ("the database is busy
 * or unavailable" alone does not say whether it timed out or was refused).
 */
const causeOf = (error: unknown): string => {
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof Error ? ` (${cause.name}: ${cause.message.split('\n')[0]})` : '';
};

/** The line(s) a failed command prints on stderr: `prefix` and the message (and its cause), and the usage when the call was at fault. */
export const failureText = (prefix: string, error: unknown, usage: string): string => {
  const message = `${prefix}${error instanceof Error ? error.message : String(error)}${causeOf(error)}`;
  return isUsageError(error) ? `${message}\n${usage}` : `${message}\n(--help shows how to call it)`;
};
