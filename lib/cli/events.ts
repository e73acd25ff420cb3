/**
 * npm run events               writes events/<route>.json, the `sam local invoke` samples (lib/local/sample-events.ts)
 * npm run events -- redrive    puts on the event bus again, from the dead-letter queue
 *                              (lib/events/dead-letters.ts), the changes whose events EventBridge kept
 *                              refusing and those of the stream's batches the publisher could not
 *                              handle (read again from the table), and deletes each letter once its
 *                              events are put; what is refused again stays
 *
 * On AWS: STORE_TABLE_NAME, STORE_EVENT_BUS_NAME and STORE_EVENTS_DEAD_LETTERS_URL (the stack's
 * TableName, EventBusName and EventsDeadLettersUrl outputs), with the usual AWS_* variables.
 */
import { changeOf, type Change } from '../db/changes.js';
import { changesDated } from '../db/feed.js';
import { readEach } from '../db/items.js';
import { receive, type Letter } from '../events/dead-letters.js';
import { publishChanges } from '../events/publish.js';
import { writeSampleEvents } from '../local/sample-events.js';
import { connectToTable } from './connect.js';

/**
 * How far a change's date may be from when its stream record arrived: its date is taken when its
 * write begins, which commits within its request's budget (10 s), and the stream's arrival times are
 * whole seconds. Events are delivered at least once: a change near a lost batch may be put twice.
 */
const ARRIVAL_SLACK_MS = { before: 15_000, after: 2_000 };

/** The changes a letter names that the table still holds (none: it is past the retention). */
async function changesOf(letters: Letter[]): Promise<Change[][]> {
  const keys = letters.flatMap((letter) => (letter.kind === 'change' ? [letter.letter.key] : []));
  const items = await readEach(keys);
  let k = 0;
  return Promise.all(
    letters.map(async (letter) => {
      if (letter.kind === 'batch') return changesDated(letter.batch.firstArrival - ARRIVAL_SLACK_MS.before, letter.batch.lastArrival + ARRIVAL_SLACK_MS.after);
      const item = items[k++];
      return item ? [changeOf(item)] : [];
    }),
  );
}

async function redrive(): Promise<{ redriven: number; gone: number; refused: number }> {
  const totals = { redriven: 0, gone: 0, refused: 0 };
  for (let letters = await receive(); letters.length; letters = await receive()) {
    const changes = await changesOf(letters);
    // A letter whose changes are past their retention has nothing left to put: it goes.
    const lettered = letters.map((letter, k) => ({ ...letter, changes: changes[k] ?? [] }));
    for (const { handled, changes: named } of lettered) {
      if (!named.length) {
        await handled();
        totals.gone++;
      }
    }
    const { refused } = await publishChanges(changes.flat());
    const refusedIds = new Set(refused.map(({ change }) => change.id));
    // A letter goes once every change it named was put; one refused again shows again after its visibility.
    for (const { handled, changes: named } of lettered) if (named.length && named.every((change) => !refusedIds.has(change.id))) await handled();
    totals.redriven += changes.flat().length - refused.length;
    totals.refused += refused.length;
    // Refused again: this run stops rather than spin on it.
    if (refused.length) break;
  }
  return totals;
}

const [command] = process.argv.slice(2);
if (!command) await writeSampleEvents();
else if (command === 'redrive') {
  const local = await connectToTable();
  try {
    const totals = await redrive();
    console.log(JSON.stringify(totals));
    process.exitCode = totals.refused ? 1 : 0;
  } finally {
    await local?.stop();
  }
} else {
  console.error(`unknown command ${command}\nusage: npm run events [-- redrive]`);
  process.exitCode = 2;
}
