/**
 * The platform's own limits, as data, in one place. Where a request would cross one, the API
 * answers in the contract's terms (docs/conventions.md: a 400, an empty page, a 413, a page cut short with
 * its cursor) instead of letting the platform answer with its own error. Every layer may read it,
 * the data layer included; it imports nothing.
 */
export const LIMITS = {
  dynamodb: {
    /** One item, attribute names and values together. */
    itemBytes: 400 * 1024,
    /** A partition key value (UTF-8 bytes), the table's and every index's. */
    partitionKeyBytes: 2048,
    /** A sort key value (UTF-8 bytes), the table's and every index's. */
    sortKeyBytes: 1024,
    /** The items one TransactWriteItems writes. */
    transactionItems: 100,
  },
  eventbridge: {
    /** One PutEvents entry: Source, DetailType, Detail and Time (14 bytes) as UTF-8 (256 KB). */
    entryBytes: 256 * 1024,
  },
  lambda: {
    /** A synchronous invocation's answer, the API Gateway event's JSON as a whole (6 MB). */
    responseBytes: 6 * 1024 * 1024,
  },
} as const;
