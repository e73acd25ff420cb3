/**
 * The table's stream in DynamoDB Local (which implements DynamoDB Streams), read as Lambda's event
 * source mapping reads it: every shard from its start, records turned into a Lambda event's
 * records (binary values in base64, as Lambda gives them).
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, type _Record } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { createDynamoDbClient, endpointConfig, tableName } from '../../lib/db/client.js';

/** A stream attribute value with its bytes in base64, the way a Lambda event carries it. */
function asLambdaValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map(asLambdaValue);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, asLambdaValue(inner)]));
  return value;
}

export class TableStream {
  private readonly streams = new DynamoDBStreamsClient(endpointConfig(process.env.DYNAMODB_ENDPOINT));
  private readonly iterators = new Map<string, string | undefined>();
  private streamArn: string | undefined;

  /** The records written since the last call (since the table was made, the first time). */
  async read(): Promise<DynamoDBRecord[]> {
    this.streamArn ??= (await createDynamoDbClient().send(new DescribeTableCommand({ TableName: tableName() }))).Table?.LatestStreamArn;
    if (!this.streamArn) throw new Error(`table ${tableName()} has no stream`);
    const { StreamDescription } = await this.streams.send(new DescribeStreamCommand({ StreamArn: this.streamArn }));
    const records: _Record[] = [];
    for (const shard of StreamDescription?.Shards ?? []) {
      const id = shard.ShardId!;
      if (!this.iterators.has(id)) {
        const { ShardIterator } = await this.streams.send(new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: id, ShardIteratorType: 'TRIM_HORIZON' }));
        this.iterators.set(id, ShardIterator);
      }
      for (let iterator = this.iterators.get(id); iterator; ) {
        const page = await this.streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        records.push(...(page.Records ?? []));
        this.iterators.set(id, page.NextShardIterator);
        if (!page.Records?.length) break;
        iterator = page.NextShardIterator;
      }
    }
    return records.map((record) => ({ ...(asLambdaValue(record) as DynamoDBRecord), eventSourceARN: this.streamArn! }));
  }
}
