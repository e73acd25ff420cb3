/**
 * npm run import -- --from mysql://user:password@host:port/database [--dry-run] [--update] [--delete-missing] [--report FILE] [--timezone ZONE]
 *
 * Copies a Thelia 2.x store (tax rules, products, customers) into the table connect.ts picks, as
 * docs/moving-from-thelia.md says; README "Moving from Thelia". Exit code 0 when the table holds the source as it
 * is, 2 when records were skipped, left as conflicts or are missing in the source (the report says
 * which and why), 1 when the import failed.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { tableName } from '../db/client.js';
import { Destination } from '../import/destination.js';
import { Progress } from '../import/progress.js';
import { formatReport, ReportBuilder } from '../import/report.js';
import { loadImportKinds, StoreImport } from '../import/run.js';
import { describeSource, TheliaSource } from '../import/source.js';
import { connectToTable } from './connect.js';
import { failureText, UsageError } from './usage.js';

const USAGE = `usage: npm run import -- --from mysql://USER:PASSWORD@HOST:PORT/DATABASE [--dry-run] [--update] [--delete-missing] [--report FILE.json] [--timezone ZONE]
  --dry-run         read and check everything, write nothing
  --update          apply what changed in Thelia since the import to records nobody changed through the API since;
                    list those changed on both sides as conflicts
  --delete-missing  delete the records the import created whose rows Thelia no longer has, when nobody changed
                    them through the API since (without it, they are listed)
  --report          also write the report as JSON to FILE.json
  --timezone        the zone of Thelia's dates (default Z, UTC; e.g. +02:00 or local)`;

export const EXIT = { complete: 0, failed: 1, incomplete: 2 } as const;

async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      from: { type: 'string' },
      'dry-run': { type: 'boolean' },
      update: { type: 'boolean' },
      'delete-missing': { type: 'boolean' },
      report: { type: 'string' },
      timezone: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return EXIT.complete;
  }
  if (!values.from) throw new UsageError('--from is required');
  const url = new URL(values.from);
  const dryRun = values['dry-run'] ?? false;
  const update = values.update ?? false;
  const deleteMissing = values['delete-missing'] ?? false;
  const source = await TheliaSource.open(url, { timezone: values.timezone ?? 'Z' });
  const local = await connectToTable().catch(async (error: unknown) => {
    await source.close();
    throw error;
  });
  // Ctrl-C: each record was written whole or not at all, so the same command completes the import.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error('\nimport interrupted: what was written stays; run the same command again to complete it');
      void Promise.resolve(local?.stop()).finally(() => process.exit(EXIT.failed));
    });
  }
  try {
    const shownSource = describeSource(url);
    console.error(`${dryRun ? 'Checking' : 'Importing'} ${shownSource} into table ${tableName()}${dryRun ? ' (dry run: nothing is written)' : ''}`);
    const kinds = await loadImportKinds();
    const report = new ReportBuilder({ source: shownSource, table: tableName(), dryRun, update, deleteMissing }, kinds);
    await new StoreImport(source, new Destination(dryRun, update, deleteMissing), report, new Progress(process.stderr), kinds).run();
    const finished = report.finish();
    if (values.report) await writeFile(values.report, `${JSON.stringify(finished, null, 2)}\n`);
    console.log(formatReport(finished));
    return report.incomplete ? EXIT.incomplete : EXIT.complete;
  } finally {
    await source.close();
    await local?.stop();
  }
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: Error) => {
    // A URL's password never reaches the message: mysql2 and URL errors do not carry it.
    console.error(failureText('import failed: ', error, USAGE));
    process.exit(EXIT.failed);
  },
);
