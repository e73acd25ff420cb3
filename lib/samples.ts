/**
 * A route's sample request, signed and played by the tooling (`npm run events`, `npm run sam --
 * play`, the OpenAPI document's examples). Each resource declares its routes' samples in its own
 * folder (`lib/<module>/samples.ts`, in the order they run on a fresh table); lib/local/sample-events.ts
 * finds them through the registry and plays every folder's in its order, a sample waiting for those
 * it `needs` (another folder's: they make what it reads or changes).
 */
import type { RouteName } from './routes.js';

export interface SampleRequest {
  route: RouteName;
  url: string;
  params?: Record<string, string>;
  body?: unknown;
  /** Samples of other folders that must have run before on the same table: they make what this one reads or changes. */
  needs?: RouteName[];
}

/** Keeps a folder's samples checked against the route table. */
export const defineSamples = (samples: readonly SampleRequest[]): readonly SampleRequest[] => samples;
