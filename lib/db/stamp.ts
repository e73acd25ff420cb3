/**
 * What a write is stamped with when it is planned: who makes it, when, and the new ids it needs. The
 * executor (write-plan.ts) makes one stamp for each planning of a write and hands it to the plan, so
 * that the plan reads nothing ambient: a record's `updatedAt` and the date of the change it records
 * are one read of the clock, and the change names the actor the edge set for the work (`actingAs`).
 */
import { randomUUID } from 'node:crypto';
import { currentScope, withinScope, type Actor } from './scope.js';

export interface WriteStamp {
  /** Who makes the write: the API key and the request, or a tool. */
  readonly actor: Actor;
  /** When, in epoch milliseconds: the one clock read of this write. */
  readonly at: number;
  /** The same instant as an ISO 8601 date (a record's `createdAt`, `updatedAt`). */
  readonly now: string;
  /** A new unique id (a change's). */
  readonly newId: () => string;
}

/**
 * Tooling that writes outside a request and names no actor (`npm run api-key`, `npm start`'s first
 * key): one request id a process, made when first needed (a Lambda's requests always name theirs).
 */
let toolActor: Actor | undefined;

/** Runs `work` so that the writes it makes are stamped with `actor`. */
export const actingAs = <T>(actor: Actor, work: () => Promise<T>): Promise<T> => withinScope({ actor }, work);

/** A stamp for a write planned now, by the work this call belongs to. */
export function stampWrite(): WriteStamp {
  const at = Date.now();
  const actor = currentScope().actor ?? (toolActor ??= { apiKey: 'cli', requestId: randomUUID() });
  return { actor, at, now: new Date(at).toISOString(), newId: randomUUID };
}
