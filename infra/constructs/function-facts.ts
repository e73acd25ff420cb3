/**
 * Facts about the functions the constructs make that tooling reads too, without loading the CDK:
 * the architectures they are built for, and the metadata key that names a route's function in a
 * synthesized template (infra/function-ids.ts finds functions by it).
 */
export const ARCHITECTURES = ['arm64', 'x86_64'] as const;
export type FunctionArchitecture = (typeof ARCHITECTURES)[number];

/** The metadata key that names, on each Lambda function of the template, the route it serves. */
export const ROUTE_METADATA = 'store-api:route';
