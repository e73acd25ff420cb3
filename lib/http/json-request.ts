/**
 * What a JSON body must be before it is parsed (docs/conventions.md):
 *   415  a media type other than application/json (case-insensitive; `+json` types refused too), a
 *        charset other than utf-8, a Content-Encoding other than identity;
 *   400  an object with a member name twice (JSON.parse would keep the last one silently).
 * The header is then given to the body parser in the one spelling it knows.
 */
import { invalidField } from '../errors.js';
import { HttpProblem } from './problem.js';
import { header, rawBody, type HttpEvent, type HttpMiddleware } from './types.js';

const unsupported = (detail: string) => new HttpProblem(415, detail);

function checkMediaType(event: HttpEvent): void {
  const [type = '', ...parameters] = (header(event, 'content-type') ?? '').split(';');
  if (type.trim().toLowerCase() !== 'application/json') throw unsupported('the body must be JSON (Content-Type: application/json)');
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() === 'charset' && value.trim().replace(/^"|"$/g, '').toLowerCase() !== 'utf-8') {
      throw unsupported('the body must be UTF-8 (charset=utf-8)');
    }
  }
  const encoding = header(event, 'content-encoding');
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') throw unsupported('the body must not be encoded (Content-Encoding: identity)');
}

/** The first member name found twice in one object of a JSON text, if any (invalid JSON: undefined, the parser says why). */
export function duplicateMember(json: string): string | undefined {
  const objects: Array<Set<string> | undefined> = [];
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '{') objects.push(new Set());
    else if (c === '[') objects.push(undefined);
    else if (c === '}' || c === ']') objects.pop();
    else if (c === '"') {
      let end = i + 1;
      while (end < json.length && json[end] !== '"') end += json[end] === '\\' ? 2 : 1;
      let next = end + 1;
      while (/\s/.test(json[next] ?? '')) next++;
      const members = objects.at(-1);
      if (members && json[next] === ':') {
        let name: string;
        try {
          name = JSON.parse(json.slice(i, end + 1)) as string;
        } catch {
          return undefined;
        }
        if (members.has(name)) return name;
        members.add(name);
      }
      i = end;
    }
  }
  return undefined;
}

export const jsonRequest = (): HttpMiddleware => ({
  before: async ({ event }) => {
    checkMediaType(event);
    const twice = duplicateMember(rawBody(event).toString('utf8'));
    if (twice !== undefined) throw invalidField('body', `has the member "${twice}" twice`);
    for (const name of Object.keys(event.headers ?? {})) if (name.toLowerCase() === 'content-type') delete event.headers[name];
    event.headers = { ...event.headers, 'content-type': 'application/json' };
  },
});
