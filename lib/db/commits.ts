/**
 * Who hears of the transactions this process commits: `npm start` wakes its change placer when one
 * records a change, as the table's stream wakes it on AWS (where nobody listens: a Lambda's writes
 * tell no one). A listener only schedules its work: it neither throws nor waits.
 */
import type { WriteStep } from './step.js';

type Listener = (steps: readonly WriteStep[]) => void;

const listeners = new Set<Listener>();

/** Calls `listener` with the steps of each transaction committed from now on; the returned function stops it. */
export function onCommitted(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Tells the listeners that `steps` committed (transactions.ts, once DynamoDB said so). */
export function committed(steps: readonly WriteStep[]): void {
  for (const listener of listeners) listener(steps);
}
