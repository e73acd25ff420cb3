/**
 * RFC 9457 problem details, with Thelia's `error` key kept for wire compatibility (CONTRACT §2).
 * Every error the API answers with is an HttpProblem by the time it leaves the error middleware.
 */
import { STATUS_CODES } from 'node:http';
import type { FieldError } from '../errors.js';

/** The IETF ratelimit-headers draft's problem type for a request past its quota. */
export const QUOTA_EXCEEDED_TYPE = 'https://iana.org/assignments/http-problem-types#quota-exceeded';

export interface ProblemBody {
  /** A registered problem type (such as the quota's), else about:blank: the status says it all. */
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

  constructor(status: number, detail: string, options: { errors?: FieldError[]; headers?: Record<string, string>; type?: string } = {}) {
    super(detail);
    this.name = 'HttpProblem';
    this.status = status;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.type = options.type ?? 'about:blank';
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
