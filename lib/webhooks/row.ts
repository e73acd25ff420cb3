/** A webhook subscription's loop row and a delivery attempt's (docs/changes-events-webhooks.md); never the secret but once. */
import { bit, type Row } from '../row.js';
import type { WebhookSubscription } from './entity.js';

export const webhookRow = (w: WebhookSubscription): Row => ({
  ID: w.id,
  URL: w.url,
  EVENTS: w.events,
  DESCRIPTION: w.description,
  ENABLED: bit(w.enabled),
  DISABLED_REASON: w.disabledReason,
  CREATE_DATE: w.createdAt,
  UPDATE_DATE: w.updatedAt,
});

export interface DeliveryAttempt {
  changeId: string;
  attempt: number;
  date: string;
  status: number;
  error: string;
  nextAttempt: string | null;
}

export const deliveryRow = (d: DeliveryAttempt): Row => ({
  CHANGE_ID: d.changeId,
  ATTEMPT: d.attempt,
  DATE: d.date,
  STATUS: d.status,
  ERROR: d.error,
  NEXT_ATTEMPT: d.nextAttempt,
});
