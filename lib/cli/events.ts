/**
 * npm run events               writes events/<route>.json, the `sam local invoke` samples (infra/sample-events.ts)
 * npm run events -- redrive    puts on the event bus again the changes whose events EventBridge kept
 *                              refusing, from the dead-letter queue (lib/events/dead-letters.ts), and
 *                              deletes each letter once its event is put; what is refused again stays
 *
 * On AWS: STORE_TABLE_NAME, STORE_EVENT_BUS_NAME and STORE_EVENTS_DEAD_LETTERS_URL (the stack's
 * TableName, EventBusName and EventsDeadLettersUrl outputs), with the usual AWS_* variables.
 */
import { changeOf } from '../db/changes.js';
import { readEach } from '../db/items.js';
import { receive } from '../events/dead-letters.js';
import { publishChanges } from '../events/publish.js';
import { writeSampleEvents } from '../../infra/sample-events.js';
import { connectToTable } from './connect.js';

async function redrive(): Promise<{ redriven: number; gone: number; refused: number }> {
  const totals = { redriven: 0, gone: 0, refused: 0 };
  for (let letters = await receive(); letters.length; letters = await receive()) {
    const items = await readEach(letters.map(({ letter }) => letter.key));
    // A change past its retention has nothing left to put: its letter goes.
    for (const [k, { handled }] of letters.entries()) {
      if (!items[k]) {
        await handled();
        totals.gone++;
      }
    }
    const present = letters.flatMap((letter, k) => (items[k] ? [{ ...letter, change: changeOf(items[k]) }] : []));
    const { refused } = await publishChanges(present.map(({ change }) => change));
    const refusedIds = new Set(refused.map(({ change }) => change.id));
    for (const { change, handled } of present) if (!refusedIds.has(change.id)) await handled();
    totals.redriven += present.length - refused.length;
    totals.refused += refused.length;
    // Refused again: its letter shows again after its visibility; this run stops rather than spin on it.
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
