/** Key builders: the only place that knows how items are addressed (see table.ts for the layout). */
export type Key = { pk: string; sk: string };

/** Ids are zero-padded in sort keys so that string order is numeric order (2^53 has 16 digits). */
export const padId = (id: number): string => String(id).padStart(16, '0');

/**
 * Sort-key sentinels that order before and after any value we store (names have no control
 * characters, see lib/validation.ts), so that a list's counter items sit at both ends of it.
 */
export const SORT_FIRST = '\u0001';
export const SORT_LAST = '\u{10FFFF}';

export const keys = {
  taxRule: (id: number): Key => ({ pk: 'TAXRULE', sk: `RULE#${padId(id)}` }),
  taxRulePartition: 'TAXRULE',
  taxRulePrefix: 'RULE#',
  defaultTaxRule: (): Key => ({ pk: 'TAXRULE', sk: 'DEFAULT' }),

  customer: (id: number): Key => ({ pk: `CUSTOMER#${id}`, sk: 'CUSTOMER' }),
  customerEmail: (email: string): Key => ({ pk: `CUSTOMER_EMAIL#${email.toLowerCase()}`, sk: 'LOCK' }),

  product: (id: number): Key => ({ pk: `PRODUCT#${id}`, sk: 'PRODUCT' }),
  productRef: (ref: string): Key => ({ pk: `PRODUCT_REF#${ref.toLowerCase()}`, sk: 'LOCK' }),

  counter: (kind: string, end: 'HEAD' | 'TAIL'): Key => ({ pk: `COUNTER#${kind}`, sk: end }),

  apiKey: (apiKey: string): Key => ({ pk: `APIKEY#${apiKey}`, sk: 'APIKEY' }),
  loginFailures: (email: string): Key => ({ pk: `LOGIN#${email.toLowerCase()}`, sk: 'FAILURES' }),
  idempotency: (scope: string): Key => ({ pk: `IDEMPOTENCY#${scope}`, sk: 'RESPONSE' }),
  referenceData: (kind: string, id: number): Key => ({ pk: `REFDATA#${kind}`, sk: padId(id) }),
};
