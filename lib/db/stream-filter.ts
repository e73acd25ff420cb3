/**
 * Filters of the table's stream: which records of it a reader takes. The same pattern is an event
 * source mapping's filter on AWS and, as a predicate, what a local reader of the stream keeps.
 */

/** The stream's records of items inserted under partition keys that start with `prefix`, as an event source mapping filters them. */
export const insertsUnder = (prefix: string) => ({ eventName: ['INSERT'], dynamodb: { Keys: { pk: { S: [{ prefix }] } } } }) as const;

export type StreamRecord = { eventName?: string; dynamodb?: { Keys?: Record<string, { S?: string }> } };

/** Whether a stream record passes an `insertsUnder` filter, as the event source mapping judges it. */
export const passes = (filter: ReturnType<typeof insertsUnder>, record: StreamRecord): boolean =>
  filter.eventName.includes(record.eventName as 'INSERT') && (record.dynamodb?.Keys?.pk?.S ?? '').startsWith(filter.dynamodb.Keys.pk.S[0].prefix);
