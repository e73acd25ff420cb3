/**
 * Puts changes on the stack's event bus (docs/changes-events-webhooks.md), in PutEvents calls of at most 10 entries and
 * 256 KB. PutEvents answers per entry: the entries it refuses (throttled, an internal failure) are
 * put again, with backoff, a few times; what it still refuses is given back to the caller, which
 * keeps their keys in the dead-letter queue (dead-letters.ts). A call that fails as a whole (the
 * service unreachable) fails the publication: the caller's stream retries it.
 */
import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { endpointConfig } from '../aws-endpoint.js';
import type { Change } from '../db/changes.js';
import { equalJitter, retrying } from '../db/retry.js';
import { LIMITS } from '../limits.js';
import { changeEvent, entryBytes } from './event.js';

/** PutEvents takes at most 10 entries a call, of 256 KB in all. */
const ENTRIES_PER_CALL = 10;

let client: EventBridgeClient | undefined;
/** The EventBridge client; EVENTBRIDGE_ENDPOINT points it elsewhere (a test's stand-in). */
const eventBridge = (): EventBridgeClient => (client ??= new EventBridgeClient(endpointConfig(process.env.EVENTBRIDGE_ENDPOINT)));

const busName = (): string => {
  const name = process.env.STORE_EVENT_BUS_NAME;
  if (!name) throw new Error('STORE_EVENT_BUS_NAME is not set');
  return name;
};

export interface Publication {
  published: number;
  /** Refusals put again (the last attempt's are in `refused`). */
  refusals: number;
  /** What EventBridge kept refusing, with its last error code (never the event's content). */
  refused: Array<{ change: Change; code: string }>;
}

/** Groups of at most 10 entries and 256 KB, in order. */
function callsOf<T>(items: readonly T[], bytesOf: (item: T) => number): T[][] {
  const calls: T[][] = [];
  let bytes = 0;
  for (const item of items) {
    const last = calls.at(-1);
    if (!last || last.length === ENTRIES_PER_CALL || bytes + bytesOf(item) > LIMITS.eventbridge.entryBytes) {
      calls.push([item]);
      bytes = bytesOf(item);
    } else {
      last.push(item);
      bytes += bytesOf(item);
    }
  }
  return calls;
}

/** Entries EventBridge refused in one call. */
class Refused extends Error {
  constructor(readonly entries: Array<{ change: Change; entry: PutEventsRequestEntry; code: string }>) {
    super('EventBridge refused entries');
  }
}

/** Puts one call's entries, again for those refused, up to `attempts` times. */
async function putCall(call: Array<{ change: Change; entry: PutEventsRequestEntry }>, attempts: number, into: Publication): Promise<void> {
  let pending = call;
  try {
    await retrying(
      async (attempt) => {
        if (attempt > 1) into.refusals += pending.length;
        const result = await eventBridge().send(new PutEventsCommand({ Entries: pending.map(({ entry }) => entry) }));
        const refused = pending.flatMap((item, k) => {
          const code = result.Entries?.[k]?.ErrorCode;
          return code ? [{ ...item, code }] : [];
        });
        into.published += pending.length - refused.length;
        if (refused.length) throw new Refused((pending = refused));
      },
      { attempts, retryable: (error) => error instanceof Refused, waitMs: equalJitter(100, 2_000) },
    );
  } catch (error) {
    if (!(error instanceof Refused)) throw error;
    into.refused.push(...error.entries.map(({ change, code }) => ({ change, code })));
  }
}

/** Puts the changes' events, a few calls at once. */
export async function publishChanges(changes: readonly Change[], attempts = 5): Promise<Publication> {
  const bus = busName();
  const entries = changes.map((change) => ({ change, entry: changeEvent(change, bus) }));
  const outcome: Publication = { published: 0, refusals: 0, refused: [] };
  const calls = callsOf(entries, ({ entry }) => entryBytes(entry));
  for (let start = 0; start < calls.length; start += 5) await Promise.all(calls.slice(start, start + 5).map((call) => putCall(call, attempts, outcome)));
  return outcome;
}
