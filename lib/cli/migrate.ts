/**
 * npm run migrate [-- --all]: runs the table's pending migrations (lib/migrations/), the same steps
 * a deploy and `npm start` run, and says which ran; `--all` runs every step again (a table restored
 * from an older backup). Works on the table connect.ts picks; on AWS, set STORE_TABLE_NAME and the
 * usual AWS_* variables. Exit 0 when all is migrated, 2 when some records now read as another's
 * value, 1 when a step failed (named).
 */
import { runMigrations } from '../migrations/run.js';
import { connectToTable } from './connect.js';

let local: Awaited<ReturnType<typeof connectToTable>>;
try {
  local = await connectToTable();
  const { ran, counts, kept, conflicts } = await runMigrations({ all: process.argv.includes('--all') });
  console.log(`migrations run: ${ran.length ? ran.join(', ') : 'none pending'}`);
  const done = Object.entries(counts).map(([what, count]) => `${what}: ${count}`);
  console.log(done.length ? done.join('; ') : 'no record needed a change');
  // Kept as they were (an earlier release took what it now checks; the next update that sends one checks it).
  for (const record of kept) console.log(`kept as it was: ${record}`);
  for (const conflict of conflicts) console.log(`left as it was (rename one of the two): ${conflict}`);
  process.exitCode = conflicts.length ? 2 : 0;
} catch (error) {
  console.error((error as Error).message);
  process.exitCode = 1;
} finally {
  await local?.stop();
}
