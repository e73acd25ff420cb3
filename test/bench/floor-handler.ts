/**
 * The floor of a cold start, for `npm run bench`: the least a DynamoDB-backed Lambda can load, one
 * client and one GetItem, built the way the stack builds ours (SDK bundled, minified ESM, the
 * credentials from Lambda's environment). Every function's init time is reported as a ratio to this
 * one's, measured in the same run. Its client is made on first use, as every function's is
 * (lib/db/client.ts `db()`): a client made at import would put the SDK's configuration and its
 * first compilation in the floor's import and in no function's (about a fifth of the floor's time).
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';

let client: DynamoDBClient | undefined;

export const handler = async () => {
  client ??= new DynamoDBClient({});
  const result = await client.send(new GetItemCommand({ TableName: process.env.STORE_TABLE_NAME, Key: { pk: { S: 'FLOOR' }, sk: { S: 'FLOOR' } } }));
  return { statusCode: 200, body: JSON.stringify(result.Item ?? null) };
};
