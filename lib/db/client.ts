/**
 * The DynamoDB document client, configured from the environment:
 *   STORE_TABLE_NAME   the table (default `store`)
 *   DYNAMODB_ENDPOINT  an endpoint such as DynamoDB Local's; unset on AWS
 *   AWS_REGION         the region (default us-east-1 when an endpoint is given)
 * Every attempt is bounded (1 s to connect, 2.5 s to answer, and the SDK told to give up then rather
 * than only warn), so that three attempts fit in a request's budget; and every call also ends when
 * the budget of the request it serves does (`withDeadline`).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isThrottled, isUnavailable, OutOfTime, Unavailable, WriteConflict } from './errors.js';
import { currentScope, withinScope } from './scope.js';
import { endpointConfig } from '../aws-endpoint.js';

let documentClient: DynamoDBDocumentClient | undefined;

export function tableName(): string {
  return process.env.STORE_TABLE_NAME ?? 'store';
}

/**
 * A DynamoDB client whose requests give up after `requestTimeoutMs` (tried 3 times): 2.5 s fits a
 * request's budget in a Lambda; tooling that sets a table up may wait longer on a cold emulator.
 */
export function createDynamoDbClient(endpoint = process.env.DYNAMODB_ENDPOINT, requestTimeoutMs = 2_500, maxAttempts = 3): DynamoDBClient {
  return new DynamoDBClient({
    maxAttempts,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: requestTimeoutMs, throwOnRequestTimeout: true },
    ...endpointConfig(endpoint),
  });
}

/**
 * A number read as a JavaScript number when it reads back as the same text, else kept exact as its
 * text (a stock of 10^12 with six fraction digits, which the record's schema reads as a decimal): no
 * number is silently rounded.
 */
export const exactNumber = (text: string): number | string => {
  const number = Number(text);
  return String(number) === text ? number : text;
};

/** A document client over `client`, reading numbers exactly and reporting the capacity each call consumed. */
export function documentClientOf(client: DynamoDBClient): DynamoDBDocumentClient {
  const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true }, unmarshallOptions: { wrapNumbers: exactNumber } });
  // Every call reports the capacity it consumed, for the request log (usage below).
  documents.middlewareStack.add(
    (next) => async (args) => {
      Object.assign(args.input as object, { ReturnConsumedCapacity: 'TOTAL' });
      return next(args);
    },
    { step: 'initialize', name: 'returnConsumedCapacity' },
  );
  return documents;
}

/** One client per container, created on first use so that tests can set the environment first. */
export function db(): DynamoDBDocumentClient {
  documentClient ??= documentClientOf(createDynamoDbClient());
  return documentClient;
}

const consumed = (output: unknown): number => {
  const capacity = (output as { ConsumedCapacity?: { CapacityUnits?: number } | Array<{ CapacityUnits?: number }> } | undefined)?.ConsumedCapacity;
  return [capacity ?? []].flat().reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
};

/** Runs `work` with every DynamoDB call in it bounded by `signal`: once it aborts, they fail as `Unavailable`. */
export const withDeadline = <T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> => withinScope({ deadline: signal }, work);

/**
 * Runs one DynamoDB call, within the deadline of the work it serves; throttling, outages, timeouts
 * and the deadline come out as `Unavailable`, and a single write refused because a transaction is
 * writing the same item (`TransactionConflictException`, which the SDK does not retry) as
 * `WriteConflict`, so that no SDK error class travels above the data layer. Every call of lib/db
 * goes through here.
 */
export async function request<T>(call: (client: DynamoDBDocumentClient, options: { abortSignal?: AbortSignal }) => Promise<T>, client: () => DynamoDBDocumentClient = db): Promise<T> {
  const { deadline: signal, usage } = currentScope();
  if (signal?.aborted) throw new OutOfTime(signal.reason);
  if (usage) usage.requests++;
  try {
    const output = await call(client(), signal ? { abortSignal: signal } : {});
    if (usage) usage.capacity += consumed(output);
    return output;
  } catch (error) {
    if (usage && isThrottled((error as Error).name)) usage.throttled++;
    if (signal?.aborted) throw new OutOfTime(error);
    if ((error as Error).name === 'TransactionConflictException') throw new WriteConflict();
    throw isUnavailable(error) ? new Unavailable(error) : error;
  }
}
