/** The kinds of record an import brings, in the order it brings them (a product names its tax rule). */
export const KINDS = ['tax rule', 'product', 'customer'] as const;
export type Kind = (typeof KINDS)[number];
