/**
 * Failed login checks per email (CONTRACT §6): after 10 failures within 10 minutes, checkLogin
 * answers 429 until the window passes.
 */
import type { Item } from '../db/items.js';
import { TooManyAttempts } from '../errors.js';
import { loginFailures } from './entity.js';

export const MAX_FAILURES = 10;

const subject = (email: string) => email.toLowerCase();

export const failuresKey = (email: string) => loginFailures.key(subject(email));

/** The error to answer with when the email has too many recent failures (`item` as read by failuresKey). */
export function tooManyFailures(item: Item | undefined): TooManyAttempts | undefined {
  const { count, remainingSeconds } = loginFailures.stateOf(item);
  return count >= MAX_FAILURES ? new TooManyAttempts('too many failed login checks for this email; retry later', remainingSeconds) : undefined;
}

/** Counts a failed check into the email's window. */
export const recordFailure = (email: string, seen: Item | undefined): Promise<void> => loginFailures.count(subject(email), seen);
