/**
 * The single table: its key schema, global secondary indexes and TTL attribute. CDK builds the
 * deployed table from this and the local setup creates the same table in DynamoDB Local.
 *
 * What lives in it is declared by each resource (lib/<resource>/entity.ts, interpreted by
 * entity.ts) and by the data layer's own modules; ARCHITECTURE.md ("The table's items") lists the keys.
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

export type IndexName = 'GSI1' | 'GSI2' | 'GSI3' | 'GSI4' | 'GSI5' | 'GSI6' | 'GSI7' | 'GSI8';

export const table: TableDefinition = {
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: {
    GSI1: { partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    GSI2: { partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
    GSI3: { partitionKey: 'gsi3pk', sortKey: 'gsi3sk' },
    GSI4: { partitionKey: 'gsi4pk', sortKey: 'gsi4sk' },
    GSI5: { partitionKey: 'gsi5pk', sortKey: 'gsi5sk' },
    // Each added alone in its release: CloudFormation adds one index per update of a table.
    GSI6: { partitionKey: 'gsi6pk', sortKey: 'gsi6sk' },
    GSI7: { partitionKey: 'gsi7pk', sortKey: 'gsi7sk' },
    GSI8: { partitionKey: 'gsi8pk', sortKey: 'gsi8sk' },
  },
  ttlAttribute: 'expiresAt',
  stream: 'NEW_IMAGE',
};

/** All key attributes are strings. */
export function keyAttributeNames(): string[] {
  return [table.partitionKey, table.sortKey, ...Object.values(table.indexes).flatMap((i) => [i.partitionKey, i.sortKey])];
}
