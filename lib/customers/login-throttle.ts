/**
 * Login checks per email (docs/api.md): at most 10 failures within 10 minutes; past them checkLogin
 * answers 429 until the window passes. Each check is counted before its password is verified, and
 * given back when it succeeds: so at most 10 passwords are ever verified for one email in a window,
 * however many requests arrive at once.
 */
import { TooManyAttempts } from '../errors.js';
import { identityOf } from '../identity.js';
import { loginAttempts } from './entity.js';

/** One window per email, however it is written (the email lock's form; bounded: checkLogin's email is validated). */
const subject = (email: string) => identityOf(email);

/** Counts a check in before its password is verified; TooManyAttempts when the email has no attempt left. */
export async function reserveLoginCheck(email: string): Promise<void> {
  const reservation = await loginAttempts.reserve(subject(email));
  if (!reservation.reserved) throw new TooManyAttempts('too many failed login checks for this email; retry later', reservation.retryAfterSeconds);
}

/** A check that succeeded is not a failure: its attempt is given back. */
export const releaseLoginCheck = (email: string): Promise<void> => loginAttempts.release(subject(email));
