import { Stack } from 'aws-cdk-lib';
import { CfnCollection, CfnAccessPolicy, CfnSecurityPolicy } from 'aws-cdk-lib/aws-opensearchserverless';
import { PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';

export interface SearchCollectionProps {
  /** The collection's name: lowercase letters, digits and hyphens, at most 24 characters (its policies' names add to it). */
  readonly name: string;
  /** A throwaway stage: no standby replicas (half the OCUs: the floor halves, and so does resilience). */
  readonly disposable: boolean;
}

/** What may be done to the indexes: the indexer keeps them; the lists read them. */
const WRITE_PERMISSIONS = ['aoss:CreateIndex', 'aoss:DeleteIndex', 'aoss:UpdateIndex', 'aoss:DescribeIndex', 'aoss:ReadDocument', 'aoss:WriteDocument'];
const READ_PERMISSIONS = ['aoss:DescribeIndex', 'aoss:ReadDocument'];

/** A valid collection name from a stack's (`StoreApi-dev` → `storeapi-dev`). */
export const collectionNameOf = (stackName: string): string =>
  stackName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .slice(0, 24)
    .replace(/-+$/, '');

/**
 * The search index on AWS (docs/lists.md): an OpenSearch Serverless collection of type SEARCH,
 * encrypted with an AWS-owned key, reached over its public endpoint by IAM only (SigV4: no
 * anonymous access exists in OpenSearch Serverless), and data access policies that let the indexer
 * write its indexes and the list functions read them, each role named, nothing else.
 */
export class SearchCollection extends Construct {
  readonly collection: CfnCollection;
  readonly name: string;
  /** The collection's HTTPS endpoint, given to the functions as STORE_SEARCH_ENDPOINT. */
  readonly endpoint: string;

  constructor(scope: Construct, id: string, props: SearchCollectionProps) {
    super(scope, id);
    const name = (this.name = props.name);
    const collectionResource = [`collection/${name}`];
    const encryption = new CfnSecurityPolicy(this, 'Encryption', {
      name: `${name}-enc`,
      type: 'encryption',
      policy: Stack.of(this).toJsonString({ Rules: [{ ResourceType: 'collection', Resource: collectionResource }], AWSOwnedKey: true }),
    });
    const network = new CfnSecurityPolicy(this, 'Network', {
      name: `${name}-net`,
      type: 'network',
      policy: Stack.of(this).toJsonString([{ Rules: [{ ResourceType: 'collection', Resource: collectionResource }], AllowFromPublic: true }]),
    });
    this.collection = new CfnCollection(this, 'Collection', { name, type: 'SEARCH', standbyReplicas: props.disposable ? 'DISABLED' : 'ENABLED', description: 'store-api: the lists search index' });
    this.collection.addResourceDependency(encryption, 'a collection is refused until its encryption policy exists');
    this.collection.addResourceDependency(network, 'and reached only as its network policy says');
    this.endpoint = this.collection.attrCollectionEndpoint;
  }

  /**
   * Lets these functions keep the indexes (`write`) or read them: a data access policy in `scope`
   * (the stack that holds their roles), named by the collection and `suffix` (unique per policy).
   */
  allow(scope: Construct, functions: readonly LambdaFunction[], access: 'write' | 'read', suffix: string): void {
    if (functions.length === 0) return;
    const roles = functions.map((fn) => fn.role as IRole);
    new CfnAccessPolicy(scope, `SearchAccess${suffix}`, {
      name: `${this.name}-${suffix.toLowerCase()}`,
      type: 'data',
      policy: Stack.of(scope).toJsonString([
        {
          Rules: [
            { ResourceType: 'index', Resource: [`index/${this.name}/*`], Permission: access === 'write' ? WRITE_PERMISSIONS : READ_PERMISSIONS },
            ...(access === 'write' ? [{ ResourceType: 'collection', Resource: [`collection/${this.name}`], Permission: ['aoss:DescribeCollectionItems'] }] : []),
          ],
          Principal: roles.map((role) => role.roleArn),
        },
      ]),
    });
    for (const fn of functions) {
      fn.addToRolePolicy(new PolicyStatement({ actions: ['aoss:APIAccessAll'], resources: [this.collection.attrArn] }));
      fn.addEnvironment('STORE_SEARCH_ENDPOINT', this.endpoint);
    }
  }
}
