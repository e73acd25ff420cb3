/**
 * The stores `npm start` serves from this checkout (tooling, never bundled), so that a tool run
 * without DATA_DIR while `npm start` runs on another data dir refuses, naming it, rather than work
 * on a store no server serves (a key the server would answer 401 to). Each `npm start` notes itself,
 * its process and data dir, in a file of its own under the system's temporary directory, in a folder
 * named after the checkout; a note whose process is gone (a `kill -9`) is ignored and removed.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface RunningStore {
  pid: number;
  dataDir: string;
}

const notes = () => path.join(tmpdir(), `store-api-running-${createHash('sha256').update(process.cwd()).digest('hex').slice(0, 16)}`);

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Notes this process as serving `dataDir`; the returned function removes the note. */
export async function noteRunningStore(dataDir: string): Promise<() => Promise<void>> {
  await mkdir(notes(), { recursive: true });
  const file = path.join(notes(), `${process.pid}.json`);
  await writeFile(file, JSON.stringify({ pid: process.pid, dataDir } satisfies RunningStore));
  return () => rm(file, { force: true });
}

/** The stores an `npm start` of this checkout serves now. */
export async function runningStores(): Promise<RunningStore[]> {
  const files = await readdir(notes()).catch(() => []);
  const stores: RunningStore[] = [];
  for (const name of files) {
    const file = path.join(notes(), name);
    const note = await readFile(file, 'utf8')
      .then((text) => JSON.parse(text) as RunningStore)
      .catch(() => undefined);
    if (note && alive(note.pid)) stores.push(note);
    else await rm(file, { force: true });
  }
  return stores;
}
