/**
 * Runs a valibot schema over a body or query string and turns every issue into a named field of
 * one 400 problem (CONTRACT §2: "every offending field listed in errors").
 */
import * as v from 'valibot';
import { invalidFields, type FieldError } from './problem.js';

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

export function parseInput<S extends AnySchema>(schema: S, value: unknown, location: 'body' | 'query'): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (!result.success) throw invalidFields(fieldErrors(result.issues, location));
  return result.output;
}
