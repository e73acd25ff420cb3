/**
 * The search index on AWS (docs/lists.md): synthesized with `-c search=opensearch`, an OpenSearch
 * Serverless SEARCH collection with its encryption, network and data access policies, an indexer on
 * the feed, and the list functions reading it with IAM; without the option, none of it.
 */
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { storeFromContext } from '../infra/context.js';
import { collectionNameOf } from '../infra/constructs/search-collection.js';
import { StoreApi } from '../infra/store-api.js';
import { PLACED_INSERTS } from '../lib/changes/placer.js';
import { routes } from '../lib/routes.js';

type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string[] };

function synthesize(context: Record<string, string>) {
  const { name, props } = storeFromContext((key) => context[key]);
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const store = new StoreApi(app, name, props);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  app.synth();
  const templates = [store.dataStack, ...store.routesStacks, store.apiStack].map((stack) => Template.fromStack(stack));
  const resources = (type: string): [string, Resource][] => templates.flatMap((t) => Object.entries(t.findResources(type)) as [string, Resource][]);
  return { store, data: Template.fromStack(store.dataStack), resources };
}

const searching = synthesize({ stage: 'prod', search: 'opensearch' });
const plain = synthesize({ stage: 'prod' });
/** A policy's JSON, with its tokens left as CloudFormation has them. */
const policyOf = (resource: Resource) => JSON.stringify(resource.Properties.Policy);

describe('-c search=opensearch', () => {
  it('makes a SEARCH collection, encrypted with an AWS-owned key, reached by IAM only, with standby replicas in a kept stage', () => {
    const [[, collection]] = searching.resources('AWS::OpenSearchServerless::Collection') as [[string, Resource]];
    expect(collection.Properties).toMatchObject({ Name: collectionNameOf('StoreApi-prod'), Type: 'SEARCH', StandbyReplicas: 'ENABLED' });
    const policies = Object.fromEntries(searching.resources('AWS::OpenSearchServerless::SecurityPolicy').map(([, r]) => [r.Properties.Type, JSON.parse(r.Properties.Policy)]));
    expect(policies.encryption).toEqual({ Rules: [{ ResourceType: 'collection', Resource: ['collection/storeapi-prod'] }], AWSOwnedKey: true });
    expect(policies.network).toEqual([{ Rules: [{ ResourceType: 'collection', Resource: ['collection/storeapi-prod'] }], AllowFromPublic: true }]);
    expect(synthesize({ stage: 'try', search: 'opensearch', disposable: 'true' }).resources('AWS::OpenSearchServerless::Collection')[0]![1].Properties.StandbyReplicas).toBe('DISABLED');
  });

  it('runs an indexer woken by placed feed items and every minute, that alone may write the indexes', () => {
    const [[indexerId, indexer]] = searching.resources('AWS::Lambda::Function').filter(([id]) => id.startsWith('SearchIndexIndexer')) as [[string, Resource]];
    expect(indexer.Properties.Environment.Variables.STORE_SEARCH_ENDPOINT).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^SearchCollection/), 'CollectionEndpoint'] });
    // Woken as the webhooks' worker is, through its `live` alias: one more mapping of placed feed items than without the option.
    const placed = (store: typeof plain) =>
      store
        .resources('AWS::Lambda::EventSourceMapping')
        .filter(([, m]) => JSON.stringify(m.Properties.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))) === JSON.stringify([PLACED_INSERTS]));
    expect(placed(searching).length).toBe(placed(plain).length + 1);
    const alias = searching.resources('AWS::Lambda::Alias').find(([, a]) => a.Properties.FunctionName.Ref === indexerId);
    expect(placed(searching).some(([, m]) => JSON.stringify(m.Properties.FunctionName).includes(alias![0]))).toBe(true);
    const access = searching.resources('AWS::OpenSearchServerless::AccessPolicy').map(([, r]) => r);
    const writers = access.filter((r) => policyOf(r).includes('aoss:WriteDocument'));
    expect(writers).toHaveLength(1);
    expect(policyOf(writers[0]!)).toContain(indexerId.replace(/[0-9A-F]{8}$/, ''));
  });

  it('lets exactly the lists that search read it, each with the endpoint and aoss:APIAccessAll', () => {
    const listing = routes.filter((route) => route.deployment.searches).map((route) => route.name);
    expect(listing.sort()).toEqual(['attribute-avs/list', 'attributes/list', 'brands/list', 'categories/list', 'customers/list', 'products/list', 'pse/list']);
    const withEndpoint = searching.resources('AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Environment?.Variables?.STORE_SEARCH_ENDPOINT);
    // The seven lists and the indexer.
    expect(withEndpoint).toHaveLength(8);
    const readers = searching.resources('AWS::OpenSearchServerless::AccessPolicy').filter(([, r]) => !policyOf(r).includes('aoss:WriteDocument'));
    expect(readers.flatMap(([, r]) => policyOf(r).match(/aoss:ReadDocument/g) ?? []).length).toBeGreaterThan(0);
    expect(readers.every(([, r]) => !policyOf(r).includes('WriteDocument'))).toBe(true);
    const granted = searching.resources('AWS::IAM::Policy').filter(([, p]) => JSON.stringify(p.Properties.PolicyDocument).includes('aoss:APIAccessAll'));
    expect(granted).toHaveLength(8);
  });

  it('synthesizes none of it without the option', () => {
    expect(plain.resources('AWS::OpenSearchServerless::Collection')).toEqual([]);
    expect(plain.resources('AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Environment?.Variables?.STORE_SEARCH_ENDPOINT)).toEqual([]);
    expect(() => storeFromContext((key) => ({ search: 'elastic' })[key])).toThrow(/-c search must be opensearch/);
  });
});
