/**
 * Verifying a delivery of the store's webhooks (Standard Webhooks), apart from the client: a
 * receiver imports only this. WebCrypto only: Node 20+, Deno, browsers, workers.
 */

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** A delivery's headers, from a Headers object or a plain record (any case). */
export type DeliveryHeaders = Headers | Record<string, string | string[] | undefined>;

const headerOf = (headers: DeliveryHeaders, name: string): string | undefined => {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(found) ? found[0] : found;
};

const base64ToBytes = (text: string): Uint8Array<ArrayBuffer> => Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
const bytesToBase64 = (bytes: ArrayBuffer): string => btoa(String.fromCharCode(...new Uint8Array(bytes)));

/** How old (or early) a delivery may be, in seconds: older ones are refused as replays. */
export const TOLERANCE_SECONDS = 5 * 60;

/**
 * Checks that `body` (the raw text received) was sent by the store under the subscription's `secret`
 * (`whsec_…`): the `webhook-signature` holds a `v1,` HMAC-SHA256 of `id.timestamp.body`, and the
 * timestamp is within five minutes of now. Returns the parsed event; throws WebhookVerificationError.
 */
export async function verifyWebhook<Event = unknown>(secret: string, body: string, headers: DeliveryHeaders, now: Date = new Date()): Promise<Event> {
  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signatures = headerOf(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  const seconds = Number(timestamp);
  if (!Number.isInteger(seconds) || Math.abs(now.getTime() / 1000 - seconds) > TOLERANCE_SECONDS) throw new WebhookVerificationError('the timestamp is too far from now');
  const key = await crypto.subtle.importKey('raw', base64ToBytes(secret.replace(/^whsec_/, '')), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const expected = bytesToBase64(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${body}`)));
  const matches = signatures.split(' ').some((candidate) => {
    const [version, signature] = candidate.split(',');
    return version === 'v1' && signature !== undefined && constantTimeEqual(signature, expected);
  });
  if (!matches) throw new WebhookVerificationError('no signature matches');
  return JSON.parse(body) as Event;
}

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
