/**
 * The table's stream in DynamoDB Local (which implements DynamoDB Streams), read as Lambda's event
 * source mapping reads it: every shard from its start, records turned into a Lambda event's
 * records (binary values in base64, as Lambda gives them).
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, type _Record } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { endpointConfig } from '../../lib/aws-endpoint.js';
import { createDynamoDbClient, tableName } from '../../lib/db/client.js';

/** A stream record's value with its bytes in base64 and its dates in epoch seconds, the way a Lambda event carries it. */
function asLambdaValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  // ApproximateCreationDateTime: epoch seconds in a Lambda event.
  if (value instanceof Date) return Math.floor(value.getTime() / 1000);
  if (Array.isArray(value)) return value.map(asLambdaValue);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, asLambdaValue(inner)]));
  return value;
}

export class TableStream {
  private readonly streams = new DynamoDBStreamsClient(endpointConfig(process.env.DYNAMODB_ENDPOINT));
  private readonly iterators = new Map<string, string | undefined>();
  /** Per shard, the sequence number of the last record read: where to go on from with a new iterator. */
  private readonly lastRead = new Map<string, string>();
  private streamArn: string | undefined;

  /** An iterator at the shard's start, or just after the last record read from it. */
  private async iteratorFor(shardId: string): Promise<string | undefined> {
    const after = this.lastRead.get(shardId);
    const position = after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER' as const, SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' as const };
    return (await this.streams.send(new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: shardId, ...position }))).ShardIterator;
  }

  /**
   * A page of a shard. DynamoDB Local answers TrimmedDataAccessException to an iterator taken while
   * its shard was empty, once a record arrives (aws/aws-sdk-java#2923): a new iterator from where the
   * reading stands reads on, as Lambda's mapping does.
   */
  private async page(shardId: string, iterator: string) {
    try {
      return await this.streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
    } catch (error) {
      if ((error as Error).name !== 'TrimmedDataAccessException') throw error;
      return this.streams.send(new GetRecordsCommand({ ShardIterator: await this.iteratorFor(shardId) }));
    }
  }

  /** The records written since the last call (since the table was made, the first time). */
  async read(): Promise<DynamoDBRecord[]> {
    this.streamArn ??= (await createDynamoDbClient().send(new DescribeTableCommand({ TableName: tableName() }))).Table?.LatestStreamArn;
    if (!this.streamArn) throw new Error(`table ${tableName()} has no stream`);
    const { StreamDescription } = await this.streams.send(new DescribeStreamCommand({ StreamArn: this.streamArn }));
    const records: _Record[] = [];
    for (const shard of StreamDescription?.Shards ?? []) {
      const id = shard.ShardId!;
      if (!this.iterators.has(id)) this.iterators.set(id, await this.iteratorFor(id));
      for (let iterator = this.iterators.get(id); iterator; ) {
        const page = await this.page(id, iterator);
        records.push(...(page.Records ?? []));
        const last = page.Records?.at(-1)?.dynamodb?.SequenceNumber;
        if (last) this.lastRead.set(id, last);
        this.iterators.set(id, page.NextShardIterator);
        if (!page.Records?.length) break;
        iterator = page.NextShardIterator;
      }
    }
    return records.map((record) => ({ ...(asLambdaValue(record) as DynamoDBRecord), eventSourceARN: this.streamArn! }));
  }
}
