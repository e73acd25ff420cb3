/** The request signature of docs/api-keys.md, as Thelia computes it: what a client, the hook and the tools sign with, and what authentication checks. */
import { createHmac } from 'node:crypto';

/** Lowercase hex HMAC-SHA1 of the body, keyed with the hex-decoded secure key. */
export function signBody(secureKeyHex: string, body: Buffer | string): string {
  return createHmac('sha1', Buffer.from(secureKeyHex, 'hex')).update(body).digest('hex');
}
