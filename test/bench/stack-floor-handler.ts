/**
 * The floor with the libraries the project's stack prescribes around every route (middy and its
 * official middlewares, valibot for every input, the document client): the document client, middy
 * with its JSON body parser, and valibot checking a query, the client made on first use
 * as the floor's client is. Reported by `npm run bench` beside the floor: what the stack itself costs
 * a cold start before any code of ours, so that a route's ratio can be read as the stack's share and ours.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import jsonBodyParser from '@middy/http-json-body-parser';
import * as v from 'valibot';

const Query = v.object({ lang: v.optional(v.pipe(v.string(), v.regex(/^[a-z]{2}_[A-Z]{2}$/))) });

let client: DynamoDBDocumentClient | undefined;

export const handler = middy(async (event: { queryStringParameters?: Record<string, string> }) => {
  const query = v.parse(Query, event.queryStringParameters ?? {});
  client ??= DynamoDBDocumentClient.from(new DynamoDBClient({}));
  const result = await client.send(new GetCommand({ TableName: process.env.STORE_TABLE_NAME, Key: { pk: 'FLOOR', sk: query.lang ?? 'FLOOR' } }));
  return { statusCode: 200, body: JSON.stringify(result.Item ?? null) };
}).use(jsonBodyParser());
