/**
 * The DynamoDB actions a piece of work uses, as IAM authorizes them (transactions per item
 * operation): to check them against what a route declares, which its function is granted.
 */
import { db } from '../../lib/db/client.js';
import type { DynamoDbAction } from '../../lib/routes.js';

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

let recording: Set<DynamoDbAction> | undefined;
let installed = false;

/** The actions the API's client sends while `work` runs (one piece of work at a time). */
export async function actionsUsedBy(work: () => Promise<unknown>): Promise<DynamoDbAction[]> {
  if (!installed) {
    db().middlewareStack.add(
      (next, context) => async (args) => {
        for (const action of actionsOf(context.commandName ?? '', args.input)) recording?.add(action);
        return next(args);
      },
      { step: 'initialize', name: 'recordActions' },
    );
    installed = true;
  }
  recording = new Set();
  try {
    await work();
    return [...recording];
  } finally {
    recording = undefined;
  }
}
