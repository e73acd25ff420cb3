/**
 * The project's own documentation as a reader goes through it: the README, then each file of docs/
 * in the order its map lists them. The tests that run what the docs show read it here, whichever
 * file a section lives in.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

/** The files of docs/ in the README's order (its "Documentation" map). */
export function docsFiles(): string[] {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const map = readme.slice(readme.indexOf('\n## Documentation\n'));
  return [...map.matchAll(/^- \[[^\]]+\]\((docs\/[^)#]+\.md)\)/gm)].map((match) => match[1]!);
}

/** The README and every docs file, in the reader's order, as one text. */
export const readDocs = (): string => ['README.md', ...docsFiles()].map((file) => readFileSync(path.join(root, file), 'utf8')).join('\n');
