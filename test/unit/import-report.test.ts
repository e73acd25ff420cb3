/** The import's report on its own: ids as ranges, and a run's report as a person reads it. */
import { describe, expect, it } from 'vitest';
import { formatReport, idRanges, ReportBuilder } from '../../lib/import/report.js';

describe('idRanges', () => {
  it('writes runs of consecutive ids as ranges', () => {
    expect(idRanges([])).toBe('');
    expect(idRanges([7])).toBe('7');
    expect(idRanges([1, 2, 3, 5, 9, 10])).toBe('1–3, 5, 9–10');
  });
});

describe('formatReport', () => {
  const kinds = [
    { kind: 'product', plural: 'products' },
    { kind: 'customer', plural: 'customers' },
  ];
  const report = () => new ReportBuilder({ source: 'mysql://reader:***@db/shop', table: 'store', dryRun: false, update: true, deleteMissing: false }, kinds);

  it('names every record under its outcome, and each reason and changed value, leaving nothing out', () => {
    const builder = report();
    for (let id = 1; id <= 80; id++) builder.add('customer', id, { status: 'skipped', problems: [{ field: 'customer.email', message: 'is empty' }] });
    builder.add('product', 12, { status: 'missing', reason: 'not in Thelia any more: --delete-missing deletes it' });
    builder.add('product', 4, { status: 'imported' }, [{ table: 'product_i18n', row: 4, locale: 'fr_FR', column: 'title', what: 'trimmed', before: 'Caf\u00e9\u00a0', after: 'Café' }]);
    builder.add('product', 5, { status: 'kept' }, [{ table: 'product', row: 5, column: 'ref', what: 'trimmed', before: ' R', after: 'R' }]);
    const finished = builder.finish();
    const text = formatReport(finished);

    expect(text).toMatch(/^Import \(--update\) from mysql:\/\/reader:\*\*\*@db\/shop into store:/);
    expect(text).toContain('  products imported: 4\n  products kept: 5\n  products missing: 12\n');
    expect(text).toContain('  customers skipped: 1–80\n');
    expect(text.match(/customer \d+: customer\.email: is empty/g)).toHaveLength(80);
    expect(text).toContain('Missing in Thelia, imported earlier (1):\n  product 12: not in Thelia any more: --delete-missing deletes it');
    expect(text).toContain('product 4: product_i18n.title (id 4, fr_FR): trimmed, "Café\\u00a0" → "Café"');
    // A kept record holds the API's values, not the import's: its normalization is not the table's.
    expect(finished.normalized.map((value) => value.id)).toEqual([4]);
    expect(finished.counts.product).toMatchObject({ read: 2, imported: 1, kept: 1, missing: 1 });
    expect(builder.incomplete).toBe(true);
  });

  it('is complete (exit 0) when nothing was skipped, left as a conflict or found missing', () => {
    const builder = report();
    builder.add('product', 1, { status: 'deleted' });
    builder.add('product', 2, { status: 'updated' });
    builder.add('customer', 3, { status: 'kept' });
    expect(builder.incomplete).toBe(false);
    expect(formatReport(builder.finish())).not.toMatch(/Skipped|Conflicts|Missing/);
  });
});
