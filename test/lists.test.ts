/**
 * Lists that answer Thelia's loop arguments (docs/lists.md): every argument and order of the
 * products, customers and categories, alone and together, checked against what the rows themselves
 * say (an oracle written here from the contract, over the whole list read by id), paged by cursor and
 * by offset, counted; bad values refused by name; the index following retitles and deletes, rebuilt
 * when lost, and named when a deployment has none.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { db } from '../lib/db/client.js';
import { call, get, put } from './support/api.js';
import { createBrand, createCategory, createCustomer, createProduct, createTaxRule } from './support/fixtures.js';
import { useSearchIndex } from './support/search-index.js';

const index = useSearchIndex();

type Row = Record<string, string | number>;

/** Case- and accent-insensitive, as the contract compares texts. */
const fold = (text: string) => text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().normalize('NFC');
const codePoints = (a: string, b: string) => {
  const [x, y] = [[...a].map((c) => c.codePointAt(0)!), [...b].map((c) => c.codePointAt(0)!)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
};
const micros = (decimal: string | number) => {
  const [whole, fraction = ''] = String(decimal).split('.');
  return BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
};
const ids = (rows: Row[]) => rows.map((row) => row.ID);

/** What a list of `rows` answers to `params`, as docs/lists.md says (`columns`: each order's sort value, each text filter's fields). */
function expected(rows: Row[], params: URLSearchParams, spec: Spec): number[] {
  const kept = rows.filter((row) => Object.entries(spec.filters).every(([name, test]) => !params.has(name) || test(row, params.get(name)!, params)));
  const order = params.get('order') ?? spec.defaultOrder(params);
  const [by, reverse] = spec.orders[order]!;
  const compare = (a: Row, b: Row) => {
    const [x, y] = [by(a), by(b)];
    const byValue = typeof x === 'bigint' || typeof x === 'number' ? (x < (y as typeof x) ? -1 : x > (y as typeof x) ? 1 : 0) : codePoints(x as string, y as string);
    return (byValue || (a.ID as number) - (b.ID as number)) * (reverse ? -1 : 1);
  };
  return ids(kept.sort(compare)) as number[];
}

interface Spec {
  filters: Record<string, (row: Row, value: string, params: URLSearchParams) => boolean>;
  orders: Record<string, [(row: Row) => string | number | bigint, boolean]>;
  defaultOrder: (params: URLSearchParams) => string;
}

const idsOf = (value: string) => value.split(',').map(Number);
const both = (name: string, by: (row: Row) => string | number | bigint) => ({ [name]: [by, false], [`${name}_reverse`]: [by, true] }) as Spec['orders'];
const words = (text: string) =>
  fold(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
function searched(row: Row, term: string, params: URLSearchParams, fields: Record<string, string>, defaults: string): boolean {
  const mode = params.get('search_mode') ?? 'strict_sentence';
  return (params.get('search_in') ?? defaults).split(',').some((name) => {
    const text = fold(String(row[fields[name]!]));
    if (mode === 'strict_sentence') return text === fold(term.trim());
    if (mode === 'sentence') return text.includes(fold(term.trim()));
    return words(term).some((word) => words(text).includes(word));
  });
}

const productSpec: Spec = {
  filters: {
    ref: (row, value) => fold(String(row.REF)) === fold(value),
    visible: (row, value) => value === '*' || String(row.VISIBLE) === value,
    category: (row, value) => idsOf(value).includes(row.DEFAULT_CATEGORY as number),
    category_default: (row, value) => idsOf(value).includes(row.DEFAULT_CATEGORY as number),
    exclude: (row, value) => !idsOf(value).includes(row.ID as number),
    exclude_category: (row, value) => !idsOf(value).includes(row.DEFAULT_CATEGORY as number),
    brand: (row, value) => idsOf(value).includes(row.BRAND_ID as number),
    tax_rule_id: (row, value) => idsOf(value).includes(row.TAX_RULE_ID as number),
    min_price: (row, value) => micros(row.PRICE!) >= micros(value),
    max_price: (row, value) => micros(row.PRICE!) <= micros(value),
    min_weight: (row, value) => micros(row.WEIGHT!) >= micros(value),
    max_weight: (row, value) => micros(row.WEIGHT!) <= micros(value),
    title: (row, value) => fold(String(row.TITLE)).includes(fold(value.trim())),
    search_term: (row, value, params) => searched(row, value, params, { ref: 'REF', title: 'TITLE', chapo: 'CHAPO', description: 'DESCRIPTION', postscriptum: 'POSTSCRIPTUM' }, 'ref,title'),
    updated_since: (row, value) => String(row.UPDATE_DATE) >= new Date(value).toISOString(),
    created_since: (row, value) => String(row.CREATE_DATE) >= new Date(value).toISOString(),
  },
  orders: {
    ...both('id', (row) => row.ID!),
    ...both('alpha', (row) => fold(String(row.TITLE))),
    min_price: [(row) => micros(row.PRICE!), false],
    max_price: [(row) => micros(row.PRICE!), true],
    ...both('ref', (row) => fold(String(row.REF))),
    ...both('created', (row) => String(row.CREATE_DATE)),
    ...both('updated', (row) => String(row.UPDATE_DATE)),
    ...both('visible', (row) => row.VISIBLE!),
  },
  defaultOrder: () => 'id',
};

/** Every row of a list in `lang`, read by id: what the oracle filters and sorts. */
async function everyRow(path: string, lang = 'en_US'): Promise<Row[]> {
  const response = await get(`${path}?limit=100&lang=${lang}`);
  expect(response.status).toBe(200);
  return response.body;
}

/**
 * Asks a list, checks its first page, its total, and the same list walked three rows at a time by
 * cursor and by offset. `total: 'none'`: a range the table serves while no search index counts it.
 */
async function checkList(path: string, query: string, spec: Spec, { total = 'counted' }: { total?: 'counted' | 'none' } = {}): Promise<number[]> {
  const params = new URLSearchParams(query);
  const rows = await everyRow(path, params.get('lang') ?? 'en_US');
  const want = expected(rows, params, spec);
  const first = await get(`${path}?${query}&limit=100`);
  expect(first.status, `${query}: ${first.text}`).toBe(200);
  expect(ids(first.body), query).toEqual(want);
  const totalCount = total === 'counted' ? String(want.length) : undefined;
  expect(first.headers['x-total-count'], query).toBe(totalCount);
  const walked: number[] = [];
  let page = await get(`${path}?${query}&limit=3`);
  for (;;) {
    expect(page.headers['x-total-count'], query).toBe(totalCount);
    walked.push(...(ids(page.body) as number[]));
    const cursor = page.headers['x-next-cursor'];
    if (!cursor) break;
    page = await get(`${path}?${query}&limit=3&cursor=${cursor}`);
  }
  expect(walked, `${query} by cursor`).toEqual(want);
  expect(ids((await get(`${path}?${query}&limit=3&offset=2`)).body), `${query} by offset`).toEqual(want.slice(2, 5));
  return want;
}

describe('product lists', () => {
  const made: Row[] = [];
  let categories: number[] = [];
  let brands: number[] = [];
  let rule = 0;
  let middle = '';

  beforeAll(async () => {
    categories = [(await createCategory()).ID, (await createCategory()).ID];
    brands = [(await createBrand()).ID, (await createBrand()).ID];
    rule = (await createTaxRule()).ID;
    const titles = ['Crème brûlée', 'Creme fraiche', 'Chaise longue', 'Chaise de jardin', 'Table', 'CRÈME DE LA CRÈME', 'Ça va', 'Œuf', 'Über chair', 'ab', 'Zèbre', 'chaise'];
    const prices = ['5', '12.5', '12.500001', '49.99', '50', '10', '12.5', '0', '100', '12.5', '7', '50.000001'];
    for (const [i, title] of titles.entries()) {
      made.push(
        (
          await createProduct({
            title,
            price: prices[i],
            weight: String(i % 4),
            visible: i % 3 !== 0,
            brand_id: [0, ...brands][i % 3],
            default_category: [0, ...categories][i % 3],
            tax_rule: i % 2 ? rule : 1,
            description: i % 2 ? `Une chaise ${title}` : 'Rien à voir',
          })
        ).row,
      );
      if (i === 5) middle = new Date().toISOString();
    }
    // A French title on one product, and an update that moves another's date.
    expect((await put(`/api/products/${made[2]!.ID}`, { locale: 'fr_FR', title: 'Chaise française' })).status).toBe(204);
    expect((await put(`/api/products/${made[0]!.ID}`, { price: '11' })).status).toBe(204);
    await index.caughtUp();
  });

  it('answers each argument alone as its rows say', async () => {
    const [c1, c2] = categories;
    for (const query of [
      'title=creme',
      'title=CRÈME',
      'title=ai',
      'title=e',
      'title=%C5%93',
      'min_price=10&max_price=50',
      'min_price=12.5&max_price=12.5',
      'max_price=12.500000',
      `category=${c1},${c2}`,
      `category_default=${c1}`,
      `exclude=${made[1]!.ID},${made[4]!.ID}`,
      `exclude_category=${c1}`,
      `brand=${brands.join(',')}`,
      `tax_rule_id=${rule}`,
      'visible=1',
      'visible=0',
      'min_weight=1&max_weight=2',
      'search_term=chaise&search_mode=any_word',
      'search_term=TABLE',
      'search_term=haise&search_mode=sentence&search_in=title,description',
      `updated_since=${middle}`,
      `created_since=${middle}`,
      `updated_since=${middle}&order=updated_reverse`,
      `created_since=${middle}&order=created`,
    ]) {
      await checkList('/api/products', query, productSpec);
    }
  });

  it('answers every order, whole and paged', async () => {
    for (const order of Object.keys(productSpec.orders)) await checkList('/api/products', `order=${order}`, productSpec);
  });

  it('answers arguments together, with any order, in any language', async () => {
    const [c1, c2] = categories;
    const found = await checkList('/api/products', `category=${c1},${c2}&min_price=10&max_price=50&title=chaise&order=min_price`, productSpec);
    expect(found.length).toBeGreaterThan(0);
    await checkList('/api/products', `brand=${brands.join(',')}&visible=1&order=alpha_reverse&lang=fr_FR`, productSpec);
    await checkList('/api/products', 'title=francaise&lang=fr_FR&order=alpha', productSpec);
    await checkList('/api/products', `exclude=${made[3]!.ID}&min_weight=1&order=updated_reverse&search_term=chaise&search_mode=any_word&search_in=description`, productSpec);
    await checkList('/api/products', `visible=1&order=max_price&updated_since=${middle}&tax_rule_id=1,${rule}`, productSpec);
    await checkList('/api/products', `ref=${made[4]!.REF}&visible=1`, productSpec);
    await checkList('/api/products', `ref=${made[4]!.REF}&visible=0`, productSpec);
  });

  it('refuses a bad value naming its parameter, and an unknown order listing the known ones', async () => {
    for (const [query, field] of [
      ['min_price=abc', 'min_price'],
      ['max_weight=-1', 'max_weight'],
      ['category=3,x', 'category'],
      ['exclude=,', 'exclude'],
      ['updated_since=yesterday', 'updated_since'],
      ['search_term=a&search_mode=fuzzy', 'search_mode'],
      ['search_term=a&search_in=price', 'search_in'],
      ['title=%20', 'title'],
      ['visible=2', 'visible'],
    ]) {
      const response = await get(`/api/products?${query}`);
      expect(response.status, query).toBe(400);
      expect(
        response.body.errors.map((error: { field: string }) => error.field),
        query,
      ).toEqual([field]);
    }
    const order = await get('/api/products?order=cheapest');
    expect(order.status).toBe(400);
    expect(order.body.errors[0].message).toContain('min_price, max_price');
  });

  it('follows retitles and deletes, and is rebuilt from the table when lost', async () => {
    const product = (await createProduct({ title: 'Guéridon ancien' })).row;
    await index.caughtUp();
    expect(ids((await get('/api/products?title=gueridon')).body)).toEqual([product.ID]);
    expect((await put(`/api/products/${product.ID}`, { locale: 'en_US', title: 'Console moderne' })).status).toBe(204);
    await index.caughtUp();
    expect((await get('/api/products?title=gueridon')).body).toEqual([]);
    expect(ids((await get('/api/products?title=console')).body)).toEqual([product.ID]);
    expect((await call('DELETE', `/api/products/${product.ID}`)).status).toBe(204);
    await index.caughtUp();
    const gone = await get('/api/products?title=console');
    expect(gone.body).toEqual([]);
    expect(gone.headers['x-total-count']).toBe('0');

    const before = await get('/api/products?min_price=10&order=alpha&limit=100');
    index.lose();
    const rebuilt = await index.caughtUp();
    expect(rebuilt?.rebuilt).toBe(true);
    expect((await get('/api/products?min_price=10&order=alpha&limit=100')).body).toEqual(before.body);
  });

  it('follows the feed by the records it names, read as they are now, without reading their changes', async () => {
    await index.caughtUp();
    const product = (await createProduct({ title: 'Bergère' })).row;
    expect((await put(`/api/products/${product.ID}`, { locale: 'en_US', title: 'Bergère dorée' })).status).toBe(204);
    const partitionsRead: string[] = [];
    const name = 'partitionsRead';
    db().middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { RequestItems?: Record<string, { Keys: { pk: string }[] }>; Key?: { pk: string } };
        for (const { Keys } of Object.values(input.RequestItems ?? {})) partitionsRead.push(...Keys.map((key) => key.pk));
        if (input.Key) partitionsRead.push(input.Key.pk);
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      await index.caughtUp();
    } finally {
      db().middlewareStack.remove(name);
    }
    expect(partitionsRead).toContain(`PRODUCT#${product.ID}`);
    expect(partitionsRead.filter((partition) => partition.startsWith('CHANGE#'))).toEqual([]);
    expect(ids((await get('/api/products?title=doree')).body)).toEqual([product.ID]);
  });

  it('names the option when this deployment has no index, and answers what the table serves', async () => {
    await index.without(async () => {
      const response = await get('/api/products?title=chaise');
      expect(response.status).toBe(400);
      expect(response.body.errors[0].field).toBe('title');
      expect(response.body.errors[0].message).toContain('-c search=opensearch');
      expect((await get('/api/products?order=alpha')).body.errors[0].field).toBe('order');
      expect((await get('/api/products?min_price=10&order=min_price')).body.errors[0].field).toBe('min_price');
      expect((await get('/api/products?visible=1&order=ref')).status).toBe(200);
      // Every product's lists are sharded (8 partitions of each index): each page merges them in order, either way, by cursor and by offset.
      await checkList('/api/products', 'order=id_reverse', productSpec);
      await checkList('/api/products', 'order=ref', productSpec);
      await checkList('/api/products', 'visible=1&order=ref_reverse', productSpec, { total: 'none' });
      // By price (GSI6), by last update (GSI7) and by creation (GSI8), the table's own indexes answer, whole and paged, counted.
      await checkList('/api/products', 'order=min_price', productSpec);
      await checkList('/api/products', 'order=max_price', productSpec);
      await checkList('/api/products', 'order=updated', productSpec);
      await checkList('/api/products', 'order=updated_reverse', productSpec);
      await checkList('/api/products', 'order=created', productSpec);
      await checkList('/api/products', 'order=created_reverse', productSpec);
      // What changed since, in the order of changes (a sync's question): a range of that index, not counted without the search index.
      await checkList('/api/products', `updated_since=${middle}&order=updated`, productSpec, { total: 'none' });
      await checkList('/api/products', `updated_since=${middle}&order=updated_reverse`, productSpec, { total: 'none' });
      await checkList('/api/products', `created_since=${middle}&order=created_reverse`, productSpec, { total: 'none' });
      expect((await get(`/api/products?ref=${made[0]!.REF}&title=creme`)).status).toBe(200);
    });
  });
});

describe('customer lists', () => {
  const customerSpec: Spec = {
    filters: {
      ref: (row, value) => fold(String(row.REF)) === fold(value),
      email: (row, value) => fold(String(row.EMAIL)) === fold(value),
      search_term: (row, value, params) => searched(row, value, params, { ref: 'REF', firstname: 'FIRSTNAME', lastname: 'LASTNAME', email: 'EMAIL' }, 'ref,firstname,lastname,email'),
      updated_since: (row, value) => String(row.UPDATE_DATE) >= new Date(value).toISOString(),
      created_since: (row, value) => String(row.CREATE_DATE) >= new Date(value).toISOString(),
    },
    orders: {
      ...both('id', (row) => row.ID!),
      ...both('reference', (row) => row.ID!),
      ...both('firstname', (row) => fold(String(row.FIRSTNAME))),
      ...both('lastname', (row) => fold(String(row.LASTNAME))),
      ...both('registration_date', (row) => String(row.CREATE_DATE)),
    },
    defaultOrder: () => 'id',
  };
  let since = '';

  beforeAll(async () => {
    const names = [
      ['Jeanne', 'Martin'],
      ['Émile', 'Zola'],
      ['emile', 'Ångström'],
      ['Zoé', 'martin-dupont'],
      ['Anne', 'Élan'],
    ];
    for (const [i, [firstname, lastname]] of names.entries()) {
      await createCustomer({ firstname, lastname });
      if (i === 1) since = new Date().toISOString();
    }
    await index.caughtUp();
  });

  it('answers each argument and order, and their combinations', async () => {
    for (const query of [
      'search_term=martin&search_mode=any_word',
      'search_term=emile&search_in=firstname',
      'search_term=MARTIN',
      'search_term=ngst&search_mode=sentence&search_in=lastname',
      `created_since=${since}&order=firstname_reverse`,
      `updated_since=${since}`,
      ...Object.keys(customerSpec.orders).map((order) => `order=${order}`),
      `search_term=e&search_mode=sentence&order=lastname&created_since=${since}`,
    ]) {
      await checkList('/api/customers', query, customerSpec);
    }
  });

  it('answers by registration date (since an instant too) from the table alone, without the search index', async () => {
    await index.without(async () => {
      await checkList('/api/customers', 'order=registration_date', customerSpec);
      await checkList('/api/customers', 'order=registration_date_reverse', customerSpec);
      await checkList('/api/customers', `created_since=${since}&order=registration_date`, customerSpec, { total: 'none' });
      await checkList('/api/customers', `created_since=${since}&order=registration_date_reverse`, customerSpec, { total: 'none' });
      // The customers' lists are sharded (4 partitions of each index), merged in order.
      await checkList('/api/customers', 'order=lastname_reverse', customerSpec);
      await checkList('/api/customers', 'order=id', customerSpec);
      expect((await get('/api/customers?order=firstname')).status).toBe(400);
    });
  });

  it('keeps no password or hash in what it searches', async () => {
    const response = await get('/api/customers?search_term=correct%20horse%20battery&search_mode=sentence&search_in=email');
    expect(response.body).toEqual([]);
  });
});

describe('category lists', () => {
  const categorySpec: Spec = {
    filters: {
      parent: (row, value) => idsOf(value).includes(row.PARENT as number),
      exclude_parent: (row, value) => !idsOf(value).includes(row.PARENT as number),
      exclude: (row, value) => !idsOf(value).includes(row.ID as number),
      visible: (row, value) => value === '*' || String(row.VISIBLE) === value,
      title: (row, value) => fold(String(row.TITLE)).includes(fold(value.trim())),
      updated_since: (row, value) => String(row.UPDATE_DATE) >= new Date(value).toISOString(),
    },
    orders: {
      ...both('manual', (row) => row.POSITION!),
      ...both('id', (row) => row.ID!),
      ...both('alpha', (row) => fold(String(row.TITLE))),
      ...both('created', (row) => String(row.CREATE_DATE)),
      ...both('updated', (row) => String(row.UPDATE_DATE)),
    },
    defaultOrder: (params) => (params.has('parent') ? 'manual' : 'id'),
  };
  let top: number[] = [];

  beforeAll(async () => {
    top = [(await createCategory({ title: 'Jardin' })).ID, (await createCategory({ title: 'Électroménager', visible: 0 })).ID];
    for (const [i, title] of ['Chaises', 'Éclairage', 'Salon de jardin', 'Cuisine'].entries()) await createCategory({ title, parent: top[i % 2], visible: i % 2 });
    await index.caughtUp();
  });

  it('answers each argument and order, and their combinations', async () => {
    const [garden, appliances] = top;
    for (const query of [
      `parent=${garden},${appliances}`,
      `parent=${garden}`,
      `exclude_parent=0`,
      `exclude=${garden}`,
      'visible=0',
      'title=JARDIN',
      'title=ec',
      ...Object.keys(categorySpec.orders).map((order) => `order=${order}`),
      `parent=${garden},${appliances}&visible=1&order=alpha`,
      `title=a&exclude_parent=${appliances}&order=updated_reverse`,
    ]) {
      await checkList('/api/categories', query, categorySpec);
    }
  });

  it('answers by last update (since an instant too) and by creation from the table alone, without the search index', async () => {
    await index.without(async () => {
      await checkList('/api/categories', 'order=updated', categorySpec);
      await checkList('/api/categories', 'order=updated_reverse', categorySpec);
      await checkList('/api/categories', 'order=created_reverse', categorySpec);
      const middle = (await get('/api/categories?order=updated&limit=100')).body[3].UPDATE_DATE;
      await checkList('/api/categories', `updated_since=${middle}&order=updated`, categorySpec, { total: 'none' });
    });
  });
});
