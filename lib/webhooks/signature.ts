/**
 * Standard Webhooks 1.0 (docs/changes-events-webhooks.md), signed with the specification's own library: a secret is
 * `whsec_` + base64 of 32 random bytes; a delivery carries `webhook-id` (the change's ID, the same on
 * every attempt), `webhook-timestamp` (Unix seconds of the attempt) and `webhook-signature`
 * (`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the secret's decoded bytes).
 */
import { Webhook } from 'standardwebhooks';

export function deliveryHeaders(secret: string, id: string, attemptedAt: Date, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(attemptedAt.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, attemptedAt, body),
  };
}
