/**
 * Request quotas per API key (docs/api-keys.md): by default 1 200 requests per 60 seconds for the keys
 * the tool creates, none for the first-start and bootstrap keys until one is set. One count per key
 * for the whole deployment, in the key's own window items (lib/db/quota-windows.ts), so that no
 * key's traffic writes where another's does.
 */
import { defineQuotaWindows, type Admission, type Quota } from '../db/quota-windows.js';
import { QUOTA_PREFIX } from '../routes.js';

export type { Admission, Quota };

export const DEFAULT_QUOTA: Quota = { requests: 1_200, seconds: 60 };

const MAX_REQUESTS = 1_000_000_000;
const MAX_SECONDS = 86_400;

const windows = defineQuotaWindows(QUOTA_PREFIX);

/** Admits one request of a key under its quota. */
export const admitRequest = (apiKey: string, quota: Quota): Promise<Admission> => windows.admit(apiKey, quota);

/** `N/SECONDS` (such as `1200/60`), or `none` for no quota (null). */
export function parseQuota(text: string): Quota | null {
  if (text.trim().toLowerCase() === 'none') return null;
  const match = /^\s*(\d{1,10})\s*\/\s*(\d{1,6})\s*$/.exec(text);
  const requests = Number(match?.[1]);
  const seconds = Number(match?.[2]);
  if (!match || requests < 1 || requests > MAX_REQUESTS || seconds < 1 || seconds > MAX_SECONDS) {
    throw new Error(`a quota is N/SECONDS (1 ≤ N ≤ ${MAX_REQUESTS}, 1 ≤ SECONDS ≤ ${MAX_SECONDS}), such as 1200/60, or none`);
  }
  return { requests, seconds };
}
