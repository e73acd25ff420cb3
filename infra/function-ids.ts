/**
 * How a route's function is named in the stack and found in a synthesized template. Kept apart from
 * the stack so that tooling (`npm run sam`) finds a function without loading the CDK.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { RouteName } from '../lib/routes.js';
import { ROUTE_METADATA } from './constructs/function-facts.js';

/** The construct id of a route's function: `tax-rules/get` → `TaxRulesGet`. */
export const constructId = (name: string): string =>
  name
    .split(/[/-]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

export interface TemplateResource {
  Type: string;
  // biome-ignore lint/suspicious/noExplicitAny: a synthesized template's properties are any resource's.
  Properties: Record<string, any>;
  Metadata?: Record<string, unknown>;
}
export interface SynthesizedTemplate {
  Resources: Record<string, TemplateResource>;
}

/**
 * The logical id of a route's Lambda function in a synthesized template, found by the route name the
 * stack writes in its metadata, never by a prefix of the logical id: `TaxRulesGetFunction…` is also
 * how the function's IAM role starts (the README's first `sam local` lookup returned the role).
 */
export function functionLogicalId(template: SynthesizedTemplate, route: RouteName | string): string {
  const found = Object.entries(template.Resources).filter(([, resource]) => resource.Type === 'AWS::Lambda::Function' && resource.Metadata?.[ROUTE_METADATA] === route);
  const [only, ...others] = found;
  if (!only || others.length) throw new Error(`the template has ${found.length} functions for the route ${route}, not one`);
  return only[0];
}

/**
 * The template of a synthesized store where every route's function is: its routes stack
 * (`<name>-Routes`, infra/store-api.ts), or its only stack (`-c layout=single`, as `npm run sam`
 * synthesizes it). Found in the cloud assembly's manifest, since a template's file is named by its
 * stack's path, not its name. Undefined when `outdir` holds no synthesized store.
 */
export function routesTemplateIn(outdir: string): string | undefined {
  const manifestFile = path.join(outdir, 'manifest.json');
  if (!existsSync(manifestFile)) return undefined;
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { artifacts?: Record<string, { type: string; properties?: { templateFile?: string; stackName?: string } }> };
  const stacks = Object.values(manifest.artifacts ?? {}).filter((artifact) => artifact.type === 'aws:cloudformation:stack');
  const stack = stacks.find((artifact) => artifact.properties?.stackName?.endsWith('-Routes')) ?? (stacks.length === 1 ? stacks[0] : undefined);
  return stack?.properties?.templateFile && path.join(outdir, stack.properties.templateFile);
}
