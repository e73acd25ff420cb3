/**
 * RFC 9457 problem details, with Thelia's `error` key kept for wire compatibility (docs/conventions.md).
 * Every error the API answers with is an HttpProblem by the time it leaves the error middleware.
 */
import { STATUS_CODES } from 'node:http';
import type { FieldError } from '../errors.js';
import { kindOfStatus, problemType, type ProblemKind } from './problem-types.js';

export interface ProblemBody {
  /** The problem's kind, as a stable URI reference (problem-types.ts). */
  type: string;
  title: string;
  status: number;
  detail: string;
  error: string;
  errors?: FieldError[];
}

export class HttpProblem extends Error {
  readonly status: number;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;
  readonly type: string;

  /** `kind`: what the problem is, when its status alone does not say (the 503s, a 500 of the deployment's secrets, the quota's 429). */
  constructor(status: number, detail: string, options: { errors?: FieldError[]; headers?: Record<string, string>; kind?: ProblemKind } = {}) {
    super(detail);
    this.name = 'HttpProblem';
    this.status = status;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.type = problemType(options.kind ?? kindOfStatus(status));
  }

  get body(): ProblemBody {
    const body: ProblemBody = {
      type: this.type,
      title: STATUS_CODES[this.status] ?? 'Error',
      status: this.status,
      detail: this.message,
      error: this.message,
    };
    if (this.errors) body.errors = this.errors;
    return body;
  }
}

export const notFound = (what = 'resource'): HttpProblem => new HttpProblem(404, `${what} not found`);
