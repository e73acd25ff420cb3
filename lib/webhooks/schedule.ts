/**
 * When a failed delivery is tried again (docs/changes-events-webhooks.md, the Standard Webhooks example schedule): after
 * about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h, each with ±10 % jitter so that
 * retries of many deliveries do not arrive together. Three days after its first attempt, a
 * delivery still failing disables its subscription. STORE_WEBHOOK_RETRY_SECONDS (a comma list)
 * replaces the delays, for tests.
 */
export const RETRY_DELAYS_SECONDS: readonly number[] = [5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400];
export const FAILING_AFTER_MS = 3 * 24 * 3_600 * 1_000;

const delays = (): readonly number[] => {
  const configured = process.env.STORE_WEBHOOK_RETRY_SECONDS;
  const parsed = configured?.split(',').map(Number);
  return parsed?.length && parsed.every((n) => Number.isFinite(n) && n >= 0) ? parsed : RETRY_DELAYS_SECONDS;
};

/**
 * When attempt `attempt + 1` is due after attempt `attempt` (1-based) failed at `failedAt`, or
 * undefined when the schedule is over.
 */
export function nextAttemptAt(attempt: number, failedAt: number, random = Math.random): number | undefined {
  const delay = delays()[attempt - 1];
  if (delay === undefined) return undefined;
  return failedAt + Math.round(delay * 1000 * (0.9 + 0.2 * random()));
}

/** Whether a delivery first attempted at `firstAttemptAt` has failed long enough to disable its subscription. */
export const failingTooLong = (firstAttemptAt: number, now: number): boolean => now - firstAttemptAt >= FAILING_AFTER_MS;
