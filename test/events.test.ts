import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeByName, routes, type DynamoDbAction } from '../lib/routes.js';
import { db } from '../lib/db/client.js';
import { ensureApiKey } from '../lib/api-keys/index.js';
import { lambdaContext, loadHandler } from '../lib/local/dispatch.js';
import { eventFile, sampleEvent, loadSampleRequests, SAMPLE_API_KEY, SAMPLE_SECURE_KEY } from '../lib/local/sample-events.js';

/** Every route's sample, from its resource's folder, in the order they play. */
const sampleRequests = await loadSampleRequests();

/** The IAM actions a command needs: transactions are authorized per item operation. */
function actionsOf(commandName: string, input: any): DynamoDbAction[] {
  // The document client and the base client share one middleware stack: both spellings arrive.
  const command = commandName.replace(/Command$/, '').replace(/^(TransactWrite|TransactGet)Items$/, '$1');
  if (command === 'TransactWrite') {
    const perItem = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' } as const;
    return input.TransactItems.map((item: object) => perItem[Object.keys(item)[0] as keyof typeof perItem]);
  }
  if (command === 'TransactGet') return ['GetItem'];
  return [(command.endsWith('Item') || command === 'Query' ? command : `${command}Item`) as DynamoDbAction];
}

describe('events/ samples', () => {
  const used = new Set<DynamoDbAction>();
  beforeAll(async () => {
    await ensureApiKey(SAMPLE_API_KEY, SAMPLE_SECURE_KEY);
    db().middlewareStack.add(
      (next, context) => async (args) => {
        for (const action of actionsOf(context.commandName ?? '', args.input)) used.add(action);
        return next(args);
      },
      { step: 'initialize', name: 'recordActions' },
    );
  });

  it('cover every route of the route table', () => {
    expect(sampleRequests.map((s) => s.route).sort()).toEqual(routes.map((r) => r.name).sort());
  });

  it('are up to date with the route table (npm run events)', async () => {
    for (const sample of sampleRequests) {
      expect(JSON.parse(await readFile(eventFile(sample.route), 'utf8')), eventFile(sample.route)).toEqual(sampleEvent(sample));
    }
  });

  it("answer each route's success status from the route table, using only the DynamoDB actions the route declares", async () => {
    process.env.STORE_API_KEY_CACHE_SECONDS = '0'; // every invocation looks its key up, as a cold Lambda does
    for (const sample of sampleRequests) {
      const route = routeByName(sample.route);
      const event = JSON.parse(await readFile(eventFile(sample.route), 'utf8'));
      const handler = await loadHandler(route);
      used.clear();
      const response = await handler(event, lambdaContext(route.name));
      expect(response.statusCode, `${sample.route}: ${response.body}`).toBe(route.status);
      expect(route.deployment.dynamodb, sample.route).toEqual(expect.arrayContaining([...used]));
    }
  });
});
