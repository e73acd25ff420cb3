/**
 * The API reference, held to what the API does: every answer a test receives is validated against
 * the schema the OpenAPI document gives for its route and status (test/support/api.ts calls this on
 * each response), so that the document cannot drift from the API.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { documentFile } from '../../lib/openapi/generate.js';
import { matchRoute } from '../../lib/http/router.js';
import { HttpProblem } from '../../lib/http/problem.js';

type Json = Record<string, any>;

const document = JSON.parse(readFileSync(documentFile, 'utf8')) as Json;
const ajv = new Ajv2020({ strict: false, validateFormats: false, validateSchema: false });
ajv.addSchema(document, 'openapi');

const pointer = (...parts: string[]) => `openapi#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
const compiled = new Map<string, ValidateFunction>();

function validator(...parts: string[]): ValidateFunction {
  const at = pointer(...parts);
  let validate = compiled.get(at);
  if (!validate) {
    validate = ajv.getSchema(at);
    if (!validate) throw new Error(`no schema at ${at}`);
    compiled.set(at, validate);
  }
  return validate;
}

/** The response object and its place in the document, with $refs to components/responses followed. */
function responseSpec(method: string, path: string, status: number): { spec: Json; at: string[] } | string {
  const match = matchRoute(method, path);
  if (match instanceof HttpProblem) return { spec: document.components.responses.Problem, at: ['components', 'responses', 'Problem'] };
  const verb = method.toUpperCase() === 'HEAD' ? 'HEAD' : match.route.method;
  const operation = document.paths[match.route.path]?.[verb.toLowerCase()];
  if (!operation) return `${verb} ${match.route.path} is not documented`;
  const spec = operation.responses[String(status)];
  if (!spec) return `${match.route.method} ${match.route.path} answered ${status}, which its document does not list (${Object.keys(operation.responses).join(', ')})`;
  if (spec.$ref) {
    const name = String(spec.$ref).split('/').at(-1)!;
    return { spec: document.components.responses[name], at: ['components', 'responses', name] };
  }
  return { spec, at: ['paths', match.route.path, verb.toLowerCase(), 'responses', String(status)] };
}

/** Why an answer does not match the document, or undefined when it does. */
export function undocumented(method: string, url: string, status: number, contentType: string, body: unknown): string | undefined {
  const { pathname } = new URL(url, 'http://localhost');
  const found = responseSpec(method, pathname, status);
  if (typeof found === 'string') return found;
  const { spec, at } = found;
  if (!spec.content || method.toUpperCase() === 'HEAD') return body === '' || body === undefined ? undefined : `${method} ${pathname} ${status} has a body its document does not describe`;
  const mediaType = contentType.split(';')[0]!.trim();
  if (!spec.content[mediaType]) return `${method} ${pathname} ${status} answered ${mediaType}, its document says ${Object.keys(spec.content).join(', ')}`;
  const validate = validator(...at, 'content', mediaType, 'schema');
  return validate(body) ? undefined : `${method} ${pathname} ${status}: ${ajv.errorsText(validate.errors)}`;
}
