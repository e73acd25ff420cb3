/**
 * RFC 9457 problem details, with Thelia's `error` key kept for wire compatibility (CONTRACT §2).
 * Every error the API answers with is an HttpProblem by the time it leaves the error middleware.
 */
import { STATUS_CODES } from 'node:http';
import type { FieldError } from '../errors.js';

export interface ProblemBody {
  type: 'about:blank';
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

  constructor(status: number, detail: string, options: { errors?: FieldError[]; headers?: Record<string, string> } = {}) {
    super(detail);
    this.name = 'HttpProblem';
    this.status = status;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }

  get body(): ProblemBody {
    const body: ProblemBody = {
      type: 'about:blank',
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
