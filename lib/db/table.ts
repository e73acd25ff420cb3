/**
 * The single table: its key schema, global secondary indexes and TTL attribute. CDK builds the
 * deployed table from this and the local setup creates the same table in DynamoDB Local.
 *
 * What lives in it is declared by each resource (lib/<resource>/entity.ts, interpreted by
 * entity.ts); today:
 *   TAXRULE / RULE#<id16>           tax rules (a bounded set, kept in one partition: consistent lists)
 *   TAXRULE / TITLES#<id16>         a tax rule's summary: its id and titles, what its lists sort
 *   TAXRULE / DEFAULT               pointer to the default tax rule (pointer.ts)
 *   CUSTOMER#<id> / CUSTOMER        customers; GSI1 by id, GSI2 by lastname
 *   CUSTOMER_EMAIL#<email> / LOCK   a customer email's lock (identity form, lib/identity.ts), carrying the password hash
 *   PRODUCT#<id> / PRODUCT          products; GSI1 by id, GSI2 by ref, GSI3/GSI4 the same per visibility
 *   PRODUCT_REF#<ref> / LOCK        a product ref's lock (identity form; a digest past a key's size)
 *   COUNTER#<name> / HEAD           a kind's id allocation, in no transaction (counters.ts)
 *   COUNTER#<name> / S#<nn>         a kind's record count, in shards (sharded-count.ts)
 *   TAXRULE_USE#<id> / S#<nn>       how many products use a tax rule, in shards (lib/tax-rules/entity.ts)
 *   APIKEY#<key> / APIKEY           API keys; GSI1 lists them
 *   LOGIN#<email> / WINDOW          failed login checks, expiring by TTL (window-counter.ts)
 *   IDEMPOTENCY#<scope> / RECORD    replayable POST answers, expiring by TTL (idempotency-store.ts)
 *   REFDATA#<kind> / <id16>         the reference data, loaded by the setup (lib/local/setup.ts)
 *   SETUP / <what>                  what the setup has done
 *   CHANGE#<resource>#<id> / V#<version>#<0|1>   a record's changes, expiring by TTL (changes.ts)
 *   CHANGES#PENDING#<0-7> / <resource>#<id>#…    a change not in the feed yet (changes.ts)
 *   CHANGES#FEED / TAIL, CHANGES#FEED#<n/1000> / <n>   the change feed (feed.ts)
 *   WEBHOOK#<id> / WEBHOOK          webhook subscriptions; GSI1 lists them
 *   WEBHOOK#<id> / JOB#<change>     a delivery to make; GSI3 by due time (due-queue.ts)
 *   WEBHOOK#<id> / DELIVERY#<time>… an attempt in the delivery log, expiring by TTL
 *   WEBHOOK_DISPATCH / CURSOR       where the webhooks' dispatcher is in the feed
 */
export interface KeyPair {
  readonly partitionKey: string;
  readonly sortKey: string;
}

export interface TableDefinition extends KeyPair {
  readonly indexes: Readonly<Record<IndexName, KeyPair>>;
  readonly ttlAttribute: string;
  /** What the deployed table's stream carries: each new item image (the push of changes reads them). Local tables have none. */
  readonly stream: 'NEW_IMAGE';
}

export type IndexName = 'GSI1' | 'GSI2' | 'GSI3' | 'GSI4';

export const table: TableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: {
    GSI1: { partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    GSI2: { partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    GSI3: { partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
    GSI4: { partitionKey: 'gsi4pk', sortKey: 'gsi4sk' },
  },
  ttlAttribute: 'expiresAt',
  stream: 'NEW_IMAGE',
};

/** All key attributes are strings. */
export function keyAttributeNames(): string[] {
  return [table.partitionKey, table.sortKey, ...Object.values(table.indexes).flatMap((i) => [i.partitionKey, i.sortKey])];
}
