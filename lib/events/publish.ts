/**
 * Puts changes on the stack's event bus. PutEvents answers per entry: an entry it refuses (throttled,
 * an internal failure) is put again, with backoff, a few times; past them the caller learns it, so
 * that the stream's record is retried rather than dropped (CONTRACT §12).
 */
import { setTimeout as pause } from 'node:timers/promises';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { changeOfStreamImage, type Change } from '../db/changes.js';
import { endpointConfig } from '../aws-endpoint.js';
import { changeEvent } from './event.js';

/** An entry EventBridge kept refusing: its error code, never the event's content. */
export class EventRefused extends Error {
  constructor(readonly code: string) {
    super(`EventBridge refused the event: ${code}`);
    this.name = 'EventRefused';
  }
}

let client: EventBridgeClient | undefined;
/** The EventBridge client; EVENTBRIDGE_ENDPOINT points it elsewhere (a test's stand-in). */
const eventBridge = (): EventBridgeClient => (client ??= new EventBridgeClient(endpointConfig(process.env.EVENTBRIDGE_ENDPOINT)));

const busName = (): string => {
  const name = process.env.STORE_EVENT_BUS_NAME;
  if (!name) throw new Error('STORE_EVENT_BUS_NAME is not set');
  return name;
};

/** Puts one change on the bus; how many times it was refused before it was taken. */
export async function publishChange(change: Change, attempts = 4): Promise<{ refusals: number }> {
  const entry = changeEvent(change, busName());
  for (let attempt = 1; ; attempt++) {
    const result = await eventBridge().send(new PutEventsCommand({ Entries: [entry] }));
    if (!result.FailedEntryCount) return { refusals: attempt - 1 };
    if (attempt >= attempts) throw new EventRefused(result.Entries?.[0]?.ErrorCode ?? 'unknown');
    await pause(50 * 2 ** attempt * (0.5 + Math.random() / 2));
  }
}

/** The change a stream record carries (its item's new image), put on the bus; with its commit date. */
export async function publishStreamRecord(image: Parameters<typeof changeOfStreamImage>[0]): Promise<{ refusals: number; date: string }> {
  const change = changeOfStreamImage(image);
  return { ...(await publishChange(change)), date: change.date };
}
