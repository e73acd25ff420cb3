/** The kinds of record an import brings, in the order it brings them (a product names its tax rule and its category). */
export const KINDS = ['tax rule', 'category', 'product', 'customer'] as const;
export type Kind = (typeof KINDS)[number];

/** A kind in the plural, as the report and the progress name it. */
export const plural = (kind: Kind): string => (kind === 'category' ? 'categories' : `${kind}s`);
