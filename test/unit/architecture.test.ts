/**
 * The layers, checked on the import graph and the source text (ARCHITECTURE.md says why):
 *   functions → http, resources, leaves;  resources → db, leaves;  db → db only;  leaves → leaves;
 *   every layer may read the platform's facts (lib/limits.ts, lib/aws-endpoint.ts), which import nothing;
 *   tooling (local runtime, CLI, setup, generators, infra) may import anything, and no Lambda's
 *   import closure reaches it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { moduleOf, registry } from '../../lib/resources.js';

const root = path.resolve(import.meta.dirname, '../..');

type Layer = 'function' | 'http' | 'resource' | 'db' | 'leaf' | 'tooling' | 'data' | 'limits';

const LEAVES = [
  'lib/identity.ts',
  'lib/catalog-texts.ts',
  'lib/catalog-texts-input.ts',
  'lib/samples.ts',
  'lib/money.ts',
  'lib/validation.ts',
  'lib/i18n.ts',
  'lib/log.ts',
  'lib/secrets.ts',
  'lib/sealed-secrets.ts',
  'lib/routes.ts',
  'lib/route-definition.ts',
  'lib/resources.ts',
  'lib/background-run.ts',
  'lib/in-turns.ts',
  'lib/errors.ts',
  'lib/row.ts',
  'lib/row-schema.ts',
  'lib/reference/index.ts',
];
/**
 * The domain modules: each protected resource the registry declares that has one (`moduleOf`), and those
 * that serve no route: the change events, the migrations, the deploy's hooks.
 */
const RESOURCES = [
  ...new Set(registry.flatMap((resource) => (resource.protectedBy !== null && existsSync(path.join(root, 'lib', moduleOf(resource))) ? [moduleOf(resource)] : []))),
  'events',
  // What a resource declares of itself for batch writes: its operations' writes, for lib/http/batch.ts to commit.
  'batch',
  'migrations',
  'deploy',
  'search',
  'opensearch',
];
/** Data a Lambda may bundle: the reference projections (runtime, and each reference route's rows) and the generated OpenAPI document. */
const BUNDLED_DATA = [
  'lib/reference/data/runtime.json',
  'lib/openapi/openapi.json',
  ...registry.flatMap((r) => (moduleOf(r) === 'reference-rows' ? [`lib/reference/data/rows/${r.folder}.json`] : [])),
];

/**
 * The platform's facts: its limits (lib/limits.ts) and how a client reaches an endpoint given in
 * place of AWS's (lib/aws-endpoint.ts), and the check of a value known to be there
 * (lib/present.ts), which every layer may read, the data layer included: each imports nothing.
 */
const PLATFORM_FILES = ['lib/limits.ts', 'lib/aws-endpoint.ts', 'lib/present.ts', 'lib/lambda-credentials.ts', 'lib/node-http.ts', 'lib/node-util.ts'];

/**
 * A resource's own tooling, in its folder: what it is to a store's import (`import.ts`) and the
 * records a fresh table is seeded with (`seed.ts`). Only the CLI and the local setup load them.
 */
const RESOURCE_TOOLING = /^lib\/[^/]+\/(?:import|seed)\.ts$/;

function layerOf(file: string): Layer {
  if (PLATFORM_FILES.includes(file)) return 'limits';
  if (RESOURCE_TOOLING.test(file)) return 'tooling';
  if (file.startsWith('functions/')) return 'function';
  if (file.startsWith('lib/http/')) return 'http';
  if (file.startsWith('lib/db/')) return 'db';
  if (RESOURCES.some((resource) => file.startsWith(`lib/${resource}/`))) return 'resource';
  if (LEAVES.includes(file)) return 'leaf';
  if (BUNDLED_DATA.includes(file)) return 'data';
  return 'tooling';
}

const ALLOWED: Record<Layer, readonly Layer[]> = {
  function: ['http', 'resource', 'leaf', 'data', 'limits'],
  http: ['http', 'resource', 'db', 'leaf', 'data', 'limits'],
  resource: ['resource', 'db', 'leaf', 'data', 'limits'],
  db: ['db', 'limits'],
  leaf: ['leaf', 'data', 'limits'],
  data: [],
  limits: [],
  tooling: ['function', 'http', 'resource', 'db', 'leaf', 'data', 'tooling', 'limits'],
};

/** The rule an import breaks, if any. */
function brokenRule(from: string, to: string): string | undefined {
  const [a, b] = [layerOf(from), layerOf(to)];
  return ALLOWED[a].includes(b) ? undefined : `${from} (${a}) imports ${to} (${b})`;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir)).flatMap((name) => {
    const file = `${dir}/${name}`;
    return statSync(path.join(root, file)).isDirectory() ? sourceFiles(file) : /\.ts$/.test(name) ? [file] : [];
  });
}

const files = ['lib', 'functions', 'infra'].flatMap(sourceFiles);
const text = new Map(files.map((file) => [file, readFileSync(path.join(root, file), 'utf8')]));
const withoutComments = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

/** The project files a file imports (statically or dynamically), resolved to their paths. */
function importsOf(file: string): string[] {
  const specifiers = [...text.get(file)!.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) => m[1]!);
  return specifiers.map((specifier) => path.posix.join(path.posix.dirname(file), specifier).replace(/\.js$/, '.ts'));
}

const graph = new Map(files.map((file) => [file, importsOf(file)]));

function closure(start: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const next of graph.get(file) ?? []) visit(next);
  };
  visit(start);
  return seen;
}

/** Every circle a depth-first walk of the edges finds, each as its trail (`a → b → a`). */
function circlesOf(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const circles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    trail.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === 'open') circles.push([...trail.slice(trail.indexOf(next)), next].join(' → '));
      else if (!state.has(next)) visit(next);
    }
    trail.pop();
    state.set(node, 'done');
  };
  for (const node of edges.keys()) if (!state.has(node)) visit(node);
  return circles;
}

describe('architecture', () => {
  it('knows every file it checks, and reports a broken rule (the checker itself)', () => {
    expect(graph.get('lib/db/entity-lists.ts')).toContain('lib/db/items.ts');
    expect(brokenRule('lib/db/transactions.ts', 'lib/http/problem.ts')).toBeDefined();
    expect(brokenRule('lib/customers/operations.ts', 'lib/http/errors.ts')).toBeDefined();
    expect(brokenRule('lib/money.ts', 'lib/db/client.ts')).toBeDefined();
    expect(brokenRule('functions/customers/get.ts', 'lib/db/items.ts')).toBeDefined();
    expect(brokenRule('lib/http/handler.ts', 'lib/db/page.ts')).toBeUndefined();
  });

  it('has imports only in the direction of the layers', () => {
    const broken = [...graph].flatMap(([from, imports]) => imports.map((to) => brokenRule(from, to)).filter(Boolean));
    expect(broken).toEqual([]);
  });

  it('bundles no tooling and no whole reference data into a Lambda', () => {
    for (const handler of files.filter((file) => file.startsWith('functions/'))) {
      const bundled = [...closure(handler)].filter((file) => layerOf(file) === 'tooling');
      expect(bundled, handler).toEqual([]);
    }
  });

  it('speaks no HTTP in the data layer: no problem, status code or header name', () => {
    const http = /HttpProblem|\b(?:200|201|204|400|401|403|404|405|409|412|413|415|429|500|503)\b|Retry-After|X-Total-Count|X-Next-Cursor|\bLink\b|ETag|If-Match|Content-Type/;
    const speaking = files.filter((file) => layerOf(file) === 'db' && http.test(withoutComments(text.get(file)!)));
    expect(speaking).toEqual([]);
  });

  it('names indexes only in the data layer and the entity declarations', () => {
    const naming = files.filter((file) => /\bGSI\d/.test(withoutComments(text.get(file)!)) && layerOf(file) !== 'db' && !/\bdefineEntity\(/.test(text.get(file)!));
    expect(naming).toEqual([]);
  });

  it('has no circle between modules: a folder that imports another is never imported back by it, directly or not', () => {
    const folderOf = (file: string) => path.posix.dirname(file);
    const edges = new Map<string, Set<string>>();
    for (const [from, imports] of graph) {
      // A platform file imports nothing (checked above): an import of it closes no circle, wherever it lives.
      for (const to of imports) {
        if (folderOf(from) !== folderOf(to) && !PLATFORM_FILES.includes(to)) edges.set(folderOf(from), new Set([...(edges.get(folderOf(from)) ?? []), folderOf(to)]));
      }
    }
    expect(circlesOf(edges)).toEqual([]);
  });

  it('has no circle between files either, type-only imports included', () => {
    const edges = new Map([...graph].map(([from, imports]) => [from, new Set(imports)]));
    expect(circlesOf(edges)).toEqual([]);
  });

  it('finds a circle where there is one (the checker itself)', () => {
    const edges = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
    ]);
    expect(circlesOf(edges)).toEqual(['a → b → c → a']);
  });

  it('has one write path: outside the data layer and the tooling, a write is committed through the executor (lib/db/write-plan.ts), never sent by hand', () => {
    const byHand =
      /\b(?:writeAtomically|writeSteps|TransactWriteCommand|TransactWriteItemsCommand|PutCommand|PutItemCommand|UpdateCommand|UpdateItemCommand|DeleteCommand|DeleteItemCommand|BatchWriteCommand|BatchWriteItemCommand)\b/;
    const sending = files.filter((file) => !['db', 'tooling'].includes(layerOf(file)) && byHand.test(withoutComments(text.get(file)!)));
    expect(sending).toEqual([]);
  });

  it("plans writes from their stamp: no resource's operations, import or entity dates a record or makes an id itself (lib/db/stamp.ts does, once a planning)", () => {
    // A date read for a record (`new Date()`) or an id made; `Date.now()` times other things (a webhook's start in the feed, waits).
    const ambient = /\bnew Date\(\)|\brandomUUID\(/;
    const planning = files.filter((file) => /^lib\/[\w-]+\/(?:operations|import|entity|sale-elements|references)\.ts$/.test(file) && ambient.test(withoutComments(text.get(file)!)));
    expect(planning).toEqual([]);
  });

  it('casts nothing through unknown', () => {
    expect(files.filter((file) => text.get(file)!.includes('as unknown as'))).toEqual([]);
  });
});
