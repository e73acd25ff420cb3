/**
 * The DynamoDB document client, configured from the environment:
 *   STORE_TABLE_NAME   the table (default `store`)
 *   DYNAMODB_ENDPOINT  an endpoint such as DynamoDB Local's; unset on AWS
 *   AWS_REGION         the region (default us-east-1 when an endpoint is given)
 * Retries are bounded so that a Lambda answers well before API Gateway's 30 s limit.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isUnavailable, Unavailable } from './errors.js';

let documentClient: DynamoDBDocumentClient | undefined;

export function tableName(): string {
  return process.env.STORE_TABLE_NAME ?? 'store';
}

export function createDynamoDbClient(endpoint = process.env.DYNAMODB_ENDPOINT): DynamoDBClient {
  return new DynamoDBClient({
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
    ...(endpoint
      ? {
          endpoint,
          region: process.env.AWS_REGION ?? 'us-east-1',
          // DynamoDB Local accepts any credentials; real ones are used when present.
          credentials:
            process.env.AWS_ACCESS_KEY_ID && process.env.AWS_SECRET_ACCESS_KEY
              ? { accessKeyId: process.env.AWS_ACCESS_KEY_ID, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY }
              : { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : {}),
  });
}

/** One client per container, created on first use so that tests can set the environment first. */
export function db(): DynamoDBDocumentClient {
  documentClient ??= DynamoDBDocumentClient.from(createDynamoDbClient(), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return documentClient;
}

/**
 * Runs one DynamoDB call; throttling, outages and timeouts come out as `Unavailable`, so that no
 * SDK error class travels above the data layer. Every call of lib/db goes through here.
 */
export async function request<T>(call: (client: DynamoDBDocumentClient) => Promise<T>): Promise<T> {
  try {
    return await call(db());
  } catch (error) {
    throw isUnavailable(error) ? new Unavailable(error) : error;
  }
}
