/** Inputs of the webhook routes (docs/changes-events-webhooks.md). */
import * as v from 'valibot';
import { flag, integer, longText } from '../validation.js';
import { CHANGE_RESOURCES } from '../changes/schema.js';

/** `*`, `<resource>.*` or `<resource>.<type>`. */
const PATTERN = new RegExp(`^(\\*|(${CHANGE_RESOURCES.join('|')})\\.(\\*|created|updated|deleted))$`);

const url = () => v.pipe(v.string('must be a URL'), v.nonEmpty('must be a URL'), v.maxLength(2048, 'must be at most 2 048 characters'));
const events = () =>
  v.pipe(
    v.array(v.pipe(v.string(), v.regex(PATTERN, `each must be *, <resource>.* or <resource>.<type> (resources: ${CHANGE_RESOURCES.join(', ')})`)), 'must be a list of event patterns'),
    v.minLength(1, 'must name at least one event pattern'),
    v.maxLength(20, 'must name at most 20 patterns'),
  );
/** A person's note on the subscription: a long text by the rules of every stored text (valid Unicode, trimmed, NFC, no control characters but line breaks and tabs). */
const description = () => longText(500);

export const WebhookCreate = v.strictObject({ url: url(), events: events(), description: v.optional(description(), '') });
export const WebhookUpdate = v.pipe(
  v.strictObject({ url: v.optional(url()), events: v.optional(events()), description: v.optional(description()), enabled: v.optional(flag()) }),
  v.check((body) => Object.keys(body).length > 0, 'has nothing to update: send at least one field to change'),
);
export const DeliveriesQuery = v.object({ limit: v.optional(v.pipe(integer(1), v.maxValue(100, 'must be at most 100')), 50) });
export const ReplayBody = v.strictObject({
  cursor: v.pipe(v.string('must be a cursor of GET /api/changes without filters, or now'), v.nonEmpty('must be a cursor of GET /api/changes without filters, or now')),
});

export type WebhookCreateInput = v.InferOutput<typeof WebhookCreate>;
export type WebhookUpdateInput = v.InferOutput<typeof WebhookUpdate>;

/** Whether a subscription's patterns take a change of `resource` and `type`. */
export const matches = (patterns: readonly string[], resource: string, type: string): boolean =>
  patterns.some((pattern) => pattern === '*' || pattern === `${resource}.*` || pattern === `${resource}.${type}`);
