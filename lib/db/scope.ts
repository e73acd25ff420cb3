/**
 * What the data layer knows of the work it serves (a request, the import, a tool), in one
 * AsyncLocalStorage: the deadline every DynamoDB call is bounded by (client.ts), the usage they add
 * to (usage.ts) and who the changes its writes record name (changes.ts). Each is set by the edge
 * that owns it (the budget, the request log, the handler) for the work it runs, nested scopes
 * keeping what they do not set. How a write is sent is never here: whoever runs an operation
 * commits its plan and says how (write-plan.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Who a change is by: the API key and the request (a tool names itself). */
export interface Actor {
  apiKey: string;
  requestId: string;
}

/** What one piece of work (a request) asks of DynamoDB, counted by client.ts `request()` (usage.ts). */
export interface DatabaseUsage {
  requests: number;
  /** Capacity units consumed, read and write. */
  capacity: number;
  /** Calls that failed for throttling, after the SDK's retries. */
  throttled: number;
}

export interface WorkScope {
  readonly deadline?: AbortSignal;
  readonly usage?: DatabaseUsage;
  readonly actor?: Actor;
}

const scopes = new AsyncLocalStorage<WorkScope>();

/** Runs `work` in the current scope with `parts` set. */
export const withinScope = <T>(parts: WorkScope, work: () => Promise<T>): Promise<T> => scopes.run({ ...scopes.getStore(), ...parts }, work);

/** The scope of the work this call belongs to (empty outside any). */
export const currentScope = (): WorkScope => scopes.getStore() ?? {};

/** Outside any scope: the one piece of work a tool is. */
const TOOLING: WorkScope = {};
/** The identity of the work this call belongs to: what may share a DynamoDB call with it (items.ts), and nothing of another request's. */
export const workIdentity = (): object => scopes.getStore() ?? TOOLING;
