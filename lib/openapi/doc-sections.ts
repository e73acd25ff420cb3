/**
 * The parts of the docs that list what the code declares, made from it so that they cannot go
 * stale: every route (lib/routes.ts) in docs/api.md, every kind of problem (problem-types.ts with
 * its meanings) there too, and every grant with the routes it opens in docs/api-keys.md.
 * `npm run openapi` writes each between its markers, and a test holds the files to them.
 */
import { PROBLEM_KINDS, problemType, type ProblemKind } from '../http/problem-types.js';
import { ACCESSES, type RouteDefinition } from '../route-definition.js';
import { PROBLEM_MEANINGS } from './problem-docs.js';

/** A generated part of a doc: its name, what it is made from, and its text between the markers. */
export interface DocSection {
  name: string;
  source: string;
  body: string;
}

const markers = ({ name, source }: Pick<DocSection, 'name' | 'source'>) => [`<!-- ${name}: written by npm run openapi from ${source} -->`, `<!-- ${name}: end -->`] as const;

/** `doc` with its section's part replaced (markers kept). */
export function withSection(doc: string, section: DocSection): string {
  const [startMarker, endMarker] = markers(section);
  const [start, end] = [doc.indexOf(startMarker), doc.indexOf(endMarker)];
  if (start < 0 || end < start) throw new Error(`the ${section.name} section's markers are missing: ${startMarker} … ${endMarker}`);
  return `${doc.slice(0, start)}${startMarker}\n\n${section.body}\n\n${endMarker}${doc.slice(end + endMarker.length)}`;
}

const shown = (routes: readonly RouteDefinition[]) => routes.filter((route) => route.path !== '$default');

export function routesSection(routes: readonly RouteDefinition[]): DocSection {
  const rows = shown(routes).map((route) => {
    const grant = route.permission ? `\`${route.permission.resource}\` ${route.permission.access}` : 'open';
    return `| ${route.method} | \`${route.path}\` | ${route.status} | ${grant} | \`${route.name}\` |`;
  });
  return { name: 'routes', source: 'lib/routes.ts', body: [`${rows.length} routes:`, '', '| method | path | success | grant | function |', '|---|---|---|---|---|', ...rows].join('\n') };
}

export function problemsSection(): DocSection {
  const rows = (Object.entries(PROBLEM_KINDS) as [ProblemKind, number][]).map(([kind, status]) => `| \`${problemType(kind)}\` | ${status} | ${PROBLEM_MEANINGS[kind]} |`);
  return { name: 'problems', source: 'lib/http/problem-types.ts', body: ['| `type` | status | what it means |', '|---|---|---|', ...rows].join('\n') };
}

/** Each grant a key may hold, with the routes each of its accesses opens. */
export function grantsSection(routes: readonly RouteDefinition[], grants: readonly string[]): DocSection {
  const rows = grants.map((grant) => {
    const opened = ACCESSES.map((access) => {
      const names = shown(routes).filter((route) => route.permission?.resource === grant && route.permission.access === access);
      return names.length ? names.map((route) => `${route.method} \`${route.path}\``).join(', ') : '—';
    });
    return `| \`${grant}\` | ${opened.join(' | ')} |`;
  });
  return { name: 'grants', source: 'lib/resources.ts', body: [`| grant | ${ACCESSES.join(' | ')} |`, `|---|${ACCESSES.map(() => '---').join('|')}|`, ...rows].join('\n') };
}
