/** What the search index keeps: the registry's searched resources, each projected as its folder declares, in the indexer's bundle too. */
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { bundleBuildOptions } from '../../infra/constructs/bundled-function.js';
import { SEARCHED_MODULES, searchProjections } from '../../lib/search/index.js';

describe('the search projections', () => {
  it("are those of the resources whose list route searches, each its folder's", async () => {
    expect(SEARCHED_MODULES).toEqual(['customers', 'products', 'categories', 'pse', 'brands', 'attributes', 'attribute-avs']);
    expect((await searchProjections()).map(({ kind, resource }) => [kind, resource])).toEqual([
      ['customers', 'customer'],
      ['products', 'product'],
      ['categories', 'category'],
      ['pse', 'pse'],
      ['brands', 'brand'],
      ['attributes', 'attribute'],
      ['attribute-avs', 'attribute-av'],
    ]);
  });

  it("are each in the indexer's bundle (the glob import found them)", async () => {
    const { metafile } = await build({ ...bundleBuildOptions('functions/search/run.ts', 'out.mjs'), write: false, metafile: true, logLevel: 'silent' });
    const projections = Object.keys(metafile.inputs).filter((file) => file.endsWith('/search.ts'));
    expect(projections.sort()).toEqual(SEARCHED_MODULES.map((module) => `lib/${module}/search.ts`).sort());
  });
});
