/** One DynamoDB Local, in memory, for the whole test run; each test file makes its own table in it. */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../lib/local/dynamodb-local.js';

let dynamo: DynamoDbLocal | undefined;

export default async function setup(project: TestProject) {
  dynamo = await startDynamoDbLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return async () => {
    await dynamo?.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}
