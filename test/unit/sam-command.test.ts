import { describe, expect, it } from 'vitest';
import { routes } from '../../lib/routes.js';
import { hostArchitecture } from '../../infra/context.js';
import { DEFAULT_API_PORT, dockerHostArgs, invokeArgs, parseCommandLine, shellLine, startApiArgs, type SamTarget } from '../../lib/cli/sam.js';
import { loadSampleRequests, playOrder } from '../../lib/local/sample-events.js';
import type { RouteName } from '../../lib/routes.js';
import type { SampleRequest } from '../../lib/samples.js';
import { readDocs } from '../support/docs.js';

/** Every route's sample, from its resource's folder, in the order they play. */
const sampleRequests = await loadSampleRequests();

const linux: SamTarget = { template: '.sam/cdk.out.x86_64/StoreApi-dev.template.json', envVars: '.sam/env.json', platform: 'linux' };

describe('npm run sam: the command line', () => {
  it('invokes any route by its name or its events/ file stem, with its sample event unless one is given', () => {
    for (const route of routes) {
      const byName = parseCommandLine(['invoke', route.name]);
      expect(byName).toMatchObject({ command: 'invoke', route: { name: route.name }, eventFile: `events/${route.name.replace('/', '-')}.json`, passthrough: [] });
      expect(parseCommandLine(['invoke', route.name.replace('/', '-')])).toEqual(byName);
    }
    expect(parseCommandLine(['invoke', 'tax-rules/get', 'my-event.json', '--skip-pull-image'])).toMatchObject({ eventFile: 'my-event.json', passthrough: ['--skip-pull-image'] });
    expect(parseCommandLine(['invoke', 'tax-rules/get', '--skip-pull-image', '--debug'])).toMatchObject({ eventFile: 'events/tax-rules-get.json', passthrough: ['--skip-pull-image', '--debug'] });
    expect(() => parseCommandLine(['invoke', 'TaxRulesGetFunction'])).toThrow('no route "TaxRulesGetFunction"');
    expect(() => parseCommandLine(['invoke'])).toThrow('invoke needs a route');
  });

  it('passes what it does not know to sam unchanged, after its own arguments', () => {
    const args = invokeArgs(linux, 'TaxRulesGetFunctionAB12CD34', 'events/tax-rules-get.json', ['--skip-pull-image', '--log-file', 'a b.log']);
    expect(args).toEqual([
      'local',
      'invoke',
      '-t',
      linux.template,
      'TaxRulesGetFunctionAB12CD34',
      '-e',
      'events/tax-rules-get.json',
      '--env-vars',
      '.sam/env.json',
      '--add-host',
      'host.docker.internal:host-gateway',
      '--skip-pull-image',
      '--log-file',
      'a b.log',
    ]);
    expect(shellLine(['sam', ...args.slice(-2)])).toBe("sam --log-file 'a b.log'");
    expect(parseCommandLine(['play', '--skip-pull-image'])).toEqual({ command: 'play', passthrough: ['--skip-pull-image'] });
  });

  it('maps host.docker.internal to the host on Linux only: Docker Desktop does it itself', () => {
    expect(dockerHostArgs('linux')).toEqual(['--add-host', 'host.docker.internal:host-gateway']);
    expect(dockerHostArgs('darwin')).toEqual([]);
    expect(dockerHostArgs('win32')).toEqual([]);
    expect(invokeArgs({ ...linux, platform: 'darwin' }, 'Fn', 'e.json', [])).not.toContain('--add-host');
  });

  it('starts the API on 3001 by default, beside npm start on 3000, or on the port asked for', () => {
    expect(DEFAULT_API_PORT).toBe(3001);
    expect(parseCommandLine(['api'])).toEqual({ command: 'api', port: 3001, passthrough: [] });
    expect(parseCommandLine(['api', '--port', '3005', '--warm-containers', 'EAGER'])).toEqual({ command: 'api', port: 3005, passthrough: ['--warm-containers', 'EAGER'] });
    expect(parseCommandLine(['api', '-p=3006'])).toMatchObject({ port: 3006 });
    expect(() => parseCommandLine(['api', '--port', 'http'])).toThrow('--port must be a port number');
    expect(startApiArgs(linux, 3005, ['--warm-containers', 'EAGER'])).toEqual([
      'local',
      'start-api',
      '-t',
      linux.template,
      '--env-vars',
      '.sam/env.json',
      '--port',
      '3005',
      '--add-host',
      'host.docker.internal:host-gateway',
      '--warm-containers',
      'EAGER',
    ]);
  });

  it("builds for the host's architecture, as Lambda names it", () => {
    expect(hostArchitecture('x64')).toBe('x86_64');
    expect(hostArchitecture('arm64')).toBe('arm64');
  });
});

describe('the sample events', () => {
  it('are in an order in which each one comes after the samples it needs', () => {
    const played = new Set<string>();
    for (const sample of sampleRequests) {
      for (const need of sample.needs ?? []) expect(played.has(need), `${sample.route} needs ${need} before it`).toBe(true);
      played.add(sample.route);
    }
  });

  it("are listed in the docs' sam section in the order npm run sam -- play follows", () => {
    const docs = readDocs();
    // The section's table: the lines of `|` from its first row on.
    const after = docs.slice(docs.indexOf('### `sam local`')).split('\n');
    const first = after.findIndex((line) => line.startsWith('| 1 |'));
    const end = after.findIndex((line, k) => k > first && !line.startsWith('|'));
    const section = after.slice(first, end).join('\n');
    const rows = [...section.matchAll(/\| (\d+) \| ([a-z-]+) \|/g)].map((m) => [Number(m[1]), m[2]] as const).sort((a, b) => a[0] - b[0]);
    expect(rows.map(([, name]) => name)).toEqual(sampleRequests.map((s) => s.route.replace('/', '-')));
  });
});

describe('the play order of the samples', () => {
  const sample = (route: string, needs?: string[]): SampleRequest => ({ route: route as RouteName, url: '/', ...(needs ? { needs: needs as RouteName[] } : {}) });
  const routesOf = (samples: readonly SampleRequest[]) => samples.map((s) => s.route);

  it('keeps each folder’s order, folders in turn, a sample waiting for those it needs while the next folder goes on', () => {
    const products = [sample('products/create', ['categories/create']), sample('products/list'), sample('products/delete')];
    const categories = [sample('categories/create'), sample('categories/delete', ['products/delete'])];
    expect(routesOf(playOrder([products, categories]))).toEqual(['categories/create', 'products/create', 'products/list', 'products/delete', 'categories/delete']);
  });

  it('names the samples whose needs never run', () => {
    expect(() => playOrder([[sample('products/create', ['categories/create'])]])).toThrow('samples whose needs never run: products/create (needs categories/create)');
  });
});
