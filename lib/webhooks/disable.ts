/**
 * Disabling a subscription the worker gave up on (docs/changes-events-webhooks.md): `gone` after a 410, `failing` after
 * three days of failures; recorded on the subscription, which a person may enable again.
 */
import type { WriteStamp } from '../db/stamp.js';
import type { WriteStep } from '../db/transactions.js';
import { webhooks, type WebhookSubscription } from './entity.js';

export type DisabledReason = 'gone' | 'failing';

/** The steps that disable the subscription as it was read, by the write `stamp` stamps. */
export const disabling = (stamp: WriteStamp, webhook: WebhookSubscription, reason: DisabledReason): WriteStep[] =>
  webhooks.replace(stamp, webhook, { ...webhook, enabled: false, disabledReason: reason, version: webhook.version + 1, updatedAt: stamp.now }, undefined);
