/**
 * Runs a valibot schema over a body or query string and turns every issue into a named field of
 * one 400 problem (docs/conventions.md: "every offending field listed in errors").
 */
import * as v from 'valibot';
import { InvalidInput, type FieldError } from '../errors.js';

type AnySchema = v.GenericSchema<unknown, unknown>;

function fieldName(issue: v.BaseIssue<unknown>, location: 'body' | 'query'): string {
  const path = issue.path ?? [];
  const parts = path.map((item) => String(item.key));
  if (parts.length === 0) return location;
  return parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

function message(issue: v.BaseIssue<unknown>): string {
  // An unknown key of a strict object: valibot reports it as "expected never".
  if (issue.expected === 'never' && issue.path?.length) return 'is not a known field';
  if (issue.input === undefined && issue.path?.length && issue.kind === 'schema') return 'is required';
  return issue.message;
}

export function fieldErrors(issues: readonly v.BaseIssue<unknown>[], location: 'body' | 'query'): FieldError[] {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const issue of issues) {
    const field = fieldName(issue, location);
    if (seen.has(field)) continue; // one message per field: the first is the most basic
    seen.add(field);
    errors.push({ field, message: message(issue) });
  }
  return errors;
}

export interface Inputs {
  body?: { schema: AnySchema; value: unknown };
  query?: { schema: AnySchema; value: unknown };
}

/** Validates the body and the query string together: one 400 lists every offending field of both. */
export function parseInputs(inputs: Inputs): { body: unknown; query: unknown } {
  const errors: FieldError[] = [];
  const parsed = { body: undefined as unknown, query: undefined as unknown };
  for (const location of ['body', 'query'] as const) {
    const input = inputs[location];
    if (!input) continue;
    const result = v.safeParse(input.schema, input.value);
    if (result.success) parsed[location] = result.output;
    else errors.push(...fieldErrors(result.issues, location));
  }
  if (errors.length) throw new InvalidInput(errors);
  return parsed;
}
