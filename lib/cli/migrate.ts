/**
 * npm run migrate: brings a table written by an earlier version to what the code expects
 * (lib/local/migrate.ts). Works on the table connect.ts picks; on AWS, set STORE_TABLE_NAME and the
 * usual AWS_* variables. Exit 0 when all is migrated, 2 when some records now read as another's value.
 */
import { migrate } from '../local/migrate.js';
import { connectToTable } from './connect.js';

const local = await connectToTable();
try {
  const { locksMoved, summariesWritten, countsSharded, jobsRelaned, secretsSealed, conflicts } = await migrate();
  console.log(
    `locks moved to the current form: ${locksMoved}; tax-rule summaries written: ${summariesWritten}; counts moved onto shards: ${countsSharded}; webhook jobs moved into their lanes: ${jobsRelaned}; secrets sealed: ${secretsSealed}`,
  );
  for (const conflict of conflicts) console.log(`left as it was (rename one of the two): ${conflict}`);
  process.exitCode = conflicts.length ? 2 : 0;
} finally {
  await local?.stop();
}
