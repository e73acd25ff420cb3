import { RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { KMS_CONTEXT } from '../../lib/sealed-secrets.js';

export interface SealedSecretsKeyProps {
  /** Dev stages: the key may be scheduled for deletion with the stack (what it sealed is then lost). */
  readonly disposable: boolean;
}

/**
 * The KMS key that wraps the data keys of sealed secrets (lib/sealed-secrets.ts): API keys' secure
 * keys and webhook secrets. Only the functions that verify requests or sign deliveries may open
 * them, and only the one that makes webhook secrets may make data keys; each only for our
 * encryption context.
 */
export class SealedSecretsKey extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string, { disposable }: SealedSecretsKeyProps) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: "store-api: wraps the data keys of API keys' secure keys and webhook secrets",
      enableKeyRotation: true,
      removalPolicy: disposable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    });
  }

  private allow(grantee: IGrantable, action: string): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: [action], resources: [this.key.keyArn], conditions: { StringEquals: { 'kms:EncryptionContext:purpose': KMS_CONTEXT.purpose } } }),
    );
  }

  /** Lets a function open sealed secrets (and tells it the key, with which it also seals). */
  letOpen(fn: LambdaFunction): void {
    fn.addEnvironment('STORE_SECRETS_KEY_ARN', this.key.keyArn);
    this.allow(fn, 'kms:Decrypt');
  }

  /** Lets a function seal new secrets: it asks the key for data keys. */
  letSeal(fn: LambdaFunction): void {
    this.letOpen(fn);
    this.allow(fn, 'kms:GenerateDataKey');
  }
}
