/**
 * Positions handed to new records among their siblings (a parent's categories, an attribute's
 * values, the brands), distinct however many creates run at once: each create claims the position
 * after the last it read on an item of its sibling group (`POSITION#<group>`), on condition that no
 * create claimed it or one after it; a create that finds a later one claimed takes the next. One
 * single-item write on an item no transaction touches, so claims queue at DynamoDB's per-item rate and
 * never conflict. A position set by hand (an update's `position`) is the client's choice: a create
 * after it goes past it, as it reads the last sibling first.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { request, tableName } from './client.js';
import { Contended } from './errors.js';
import { conditionally } from './transactions.js';

/** Claims a create may make before its group is called busy: as many as creates racing for it. */
const MAX_CLAIMS = 50;

/** The position after `lastRead` (the last sibling's, read by the create) and after every one claimed in `group` so far. */
export async function claimPosition(group: string, lastRead: number): Promise<number> {
  let after = lastRead;
  for (let claim = 0; claim < MAX_CLAIMS; claim++) {
    const next = after + 1;
    const claimed = await conditionally(
      request((db, options) =>
        db.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: { pk: `POSITION#${group}`, sk: 'LAST' },
            UpdateExpression: 'SET lastPosition = :next',
            ConditionExpression: 'attribute_not_exists(lastPosition) OR lastPosition < :next',
            ExpressionAttributeValues: { ':next': next },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
          options,
        ),
      ),
    );
    if (claimed.written) return next;
    after = Math.max(next, Number(claimed.found?.lastPosition ?? next));
  }
  throw new Contended();
}
