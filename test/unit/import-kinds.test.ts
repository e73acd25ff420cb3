/** The import's kinds: each declared in its resource's folder, brought in the order their references need. */
import { describe, expect, it } from 'vitest';
import { inImportOrder, type ImportKind } from '../../lib/import/kind.js';
import { loadImportKinds } from '../../lib/import/run.js';

/** A kind as the order sees it: its name and the kinds it names. */
const kind = (name: string, after: string[] = []) => ({ kind: name, after }) as Pick<ImportKind, 'kind' | 'after'> as ImportKind;
const names = (kinds: readonly ImportKind[]) => kinds.map((k) => k.kind);

describe('inImportOrder', () => {
  it('brings a kind after those it names, the kinds nothing links last, else in the order given', () => {
    const order = inImportOrder([kind('rule'), kind('customer'), kind('product', ['rule', 'category']), kind('category')]);
    expect(names(order)).toEqual(['rule', 'category', 'product', 'customer']);
  });

  it('names the kinds whose kinds before never come', () => {
    expect(() => inImportOrder([kind('a', ['b']), kind('b', ['a']), kind('c')])).toThrow('import kinds whose kinds before never come: a (after b); b (after a)');
    expect(() => inImportOrder([kind('product', ['brand'])])).toThrow('product (after brand)');
  });
});

describe('loadImportKinds', () => {
  it("finds each resource folder's kind through the registry, in the order a run brings them", async () => {
    const kinds = await loadImportKinds();
    expect(kinds.map(({ kind, plural, table }) => [kind, plural, table])).toEqual([
      ['tax rule', 'tax rules', 'tax_rule'],
      ['category', 'categories', 'category'],
      ['brand', 'brands', 'brand'],
      ['product', 'products', 'product'],
      ['attribute', 'attributes', 'attribute'],
      ['attribute value', 'attribute values', 'attribute_av'],
      ['sale element', 'sale elements', 'product_sale_elements'],
      ['customer', 'customers', 'customer'],
    ]);
  });
});
