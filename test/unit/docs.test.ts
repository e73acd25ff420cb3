/**
 * The README and docs/ as a newcomer finds them: a short README whose map reaches every file of
 * docs/, every relative link (and its #anchor) resolving in the repository, and nothing pointing
 * outside it, which a clone would not have.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withSection } from '../../lib/openapi/doc-sections.js';
import { generatedSections } from '../../lib/openapi/generate.js';
import { docsFiles } from '../support/docs.js';

const root = path.resolve(import.meta.dirname, '../..');
const files = ['README.md', ...readdirSync(path.join(root, 'docs')).map((file) => `docs/${file}`), 'ARCHITECTURE.md'];
const text = (file: string) => readFileSync(path.join(root, file), 'utf8');
/** Prose only: what code blocks hold is shell and code, not links. */
const prose = (file: string) => text(file).replace(/```[\s\S]*?```/g, '');

/** GitHub's anchor of a heading. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
const anchorsOf = (file: string) => new Set([...prose(file).matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1]!)));

describe('the docs', () => {
  it('start from a README of at most 250 lines whose map names every file of docs/', () => {
    expect(text('README.md').split('\n').length).toBeLessThanOrEqual(250);
    expect(docsFiles().sort()).toEqual(files.filter((file) => file.startsWith('docs/')).sort());
  });

  it('link only to what the repository has: every relative link and its anchor resolve', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const [, target] of prose(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?|mailto):/.test(target!)) continue;
        const [where = '', anchor] = target!.split('#');
        const linked = where ? path.normalize(path.join(path.dirname(file), where)) : file;
        if (linked.startsWith('..') || !existsSync(path.join(root, linked))) broken.push(`${file}: ${target} (no ${linked})`);
        else if (anchor && linked.endsWith('.md') && !anchorsOf(linked).has(anchor)) broken.push(`${file}: ${target} (no heading #${anchor} in ${linked})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('point nowhere outside the repository, and say things in their own words (no section of a document a clone lacks)', () => {
    for (const file of ['README.md', ...docsFiles()]) expect(text(file), file).not.toMatch(/\.\.\/shared|\.\.\/\.\.\/|CONTRACT §/);
  });

  it("cite only the project's own docs in ARCHITECTURE.md and the code's comments (the construct library's typings ship them)", () => {
    const sources = ['lib', 'infra', 'functions', 'client/src', 'test', 'events'].flatMap((dir) =>
      readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
        .filter((file) => /\.(ts|mts|mjs|json)$/.test(file) && !file.includes('node_modules'))
        .map((file) => `${dir}/${file}`),
    );
    // A section sign names a section of a document a clone lacks (the contract's, the seed's).
    const outside = /\.\.\/shared|§\d/;
    const citing = ['ARCHITECTURE.md', ...sources].filter((file) => file !== 'test/unit/docs.test.ts' && outside.test(text(file)));
    expect(citing).toEqual([]);
  });

  it('name in the Configuration table every variable the code reads: none left for a reader to find in the source', () => {
    const sources = ['lib', 'infra', 'functions'].flatMap((dir) =>
      readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts'))
        .map((file) => text(`${dir}/${file}`)),
    );
    const read = new Set(sources.flatMap((source) => [...source.matchAll(/process\.env(?:\.|\[['"])([A-Z][A-Z0-9_]+)/g)].map((match) => match[1]!)));
    const table = text('docs/local-store-and-configuration.md').slice(text('docs/local-store-and-configuration.md').indexOf('## Configuration'));
    expect([...read].filter((name) => !table.includes(`\`${name}\``)).sort()).toEqual([]);
  });

  it('list every route, problem and grant as the code declares them (npm run openapi writes those sections)', () => {
    for (const [file, sections] of generatedSections()) {
      const doc = text(file);
      expect(sections.reduce(withSection, doc), `${file}: run npm run openapi`).toBe(doc);
    }
  });
});
