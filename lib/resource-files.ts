/**
 * What the resources' folders declare for the tooling, each in a file of its own name
 * (`lib/<module>/samples.ts`, `lib/<module>/import.ts`): found through the registry, in its order,
 * from the folders that have one. Tooling: the modules load by path, which no Lambda bundles.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { moduleOf, registry } from './resources.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The export `name` of each resource folder's `file`, in the registry's order. */
export async function fromResourceFolders<T>(file: string, name: string): Promise<T[]> {
  const found: T[] = [];
  for (const module of new Set(registry.map(moduleOf))) {
    const declared = path.join(root, 'lib', module, file);
    if (existsSync(declared)) found.push(((await import(pathToFileURL(declared).href)) as Record<string, T>)[name] as T);
  }
  return found;
}
