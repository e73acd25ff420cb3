/**
 * Errors of the domain that are not the data layer's: input that breaks a rule, too many attempts.
 * The HTTP edge (lib/http/errors.ts) maps them, with the data layer's, to problem+json.
 */
export interface FieldError {
  field: string;
  message: string;
}

/** The input breaks a rule: every offending field, with what is wrong with it. */
export class InvalidInput extends Error {
  constructor(readonly errors: FieldError[]) {
    super(errors.map((e) => `${e.field}: ${e.message}`).join('; '));
    this.name = 'InvalidInput';
  }
}

export const invalidField = (field: string, message: string): InvalidInput => new InvalidInput([{ field, message }]);

/** Too many attempts of something rate-limited; it may be tried again after `retryAfterSeconds`. */
export class TooManyAttempts extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = 'TooManyAttempts';
  }
}

/** Something the request needs besides the table (the server secret) could not be had; retry later. */
export class DependencyUnavailable extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'DependencyUnavailable';
  }
}

/**
 * This process has no server secret, so it may not sign, fingerprint or seal (docs/api-keys.md): there is
 * no default to fall back on. A fault of the deployment, not of the request.
 */
export class SecretMissing extends Error {
  constructor() {
    super("no server secret is configured: set STORE_SECRET to the secret, or DATA_DIR to the data dir whose secret npm start keeps (default .data), or on AWS STORE_SECRET_ARN to the stack's secret");
    this.name = 'SecretMissing';
  }
}

/**
 * A sealed secret (lib/sealed-secrets.ts) did not open: it was sealed under another server secret or
 * KMS key than this process has, or was altered. A fault of the deployment; the cause is logged.
 */
export class SealedSecretUnreadable extends Error {
  constructor(context: string, cause: unknown) {
    super(`the sealed secret of ${context.split('#')[0]} could not be opened: it was sealed under another server secret or key than this server has`, { cause });
    this.name = 'SealedSecretUnreadable';
  }
}

/** The caller's key may not see what it asked for (a resource's changes it has no VIEW on). */
export class Forbidden extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'Forbidden';
  }
}
