/** What one piece of work (a request) asks of DynamoDB, counted by client.ts `request()`; no SDK here. */
import { currentScope, withinScope, type DatabaseUsage } from './scope.js';

export type { DatabaseUsage };

/** Runs `work`, adding what its DynamoDB calls ask to `usage`. */
export const countingUsage = <T>(usage: DatabaseUsage, work: () => Promise<T>): Promise<T> => withinScope({ usage }, work);

/** The usage of the work this call belongs to, if it is counted. */
export const currentUsage = (): DatabaseUsage | undefined => currentScope().usage;
