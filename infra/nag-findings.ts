import { Token, Validations, type CfnElement, type Stack } from 'aws-cdk-lib';
import type { LambdaApplication } from 'aws-cdk-lib/aws-codedeploy';
import { Function as LambdaFunction, type IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Provider } from 'aws-cdk-lib/custom-resources';

/**
 * What the AwsSolutions checks (cdk-nag, run on every synth by app.ts) find in this design on
 * purpose, each with why.
 */
export function acknowledgeNagFindings(stack: Stack, parts: { tableArn?: string; releases?: LambdaApplication; hook?: IFunction; checked?: readonly IFunction[]; migrations?: Provider } = {}): void {
  const acknowledge = (id: string, reason: string) => Validations.of(stack).acknowledge({ id, reason });
  const logicalId = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as CfnElement);
  // How the checks write a value of the stack's environment: itself when given, else its pseudo parameter.
  const shown = (value: string, pseudo: string) => (Token.isUnresolved(value) ? `<${pseudo}>` : value);
  if (parts.tableArn) {
    acknowledge(`AwsSolutions-IAM5[Resource::${parts.tableArn}/index/*]`, "The routes that list may Query the store table's own indexes, and nothing but the indexes of that one table.");
  }
  if (parts.releases) {
    acknowledge(
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      "CodeDeploy's own policy for Lambda releases: it moves the aliases of this stack's functions and invokes their hooks; the deployment groups share this one role.",
    );
    acknowledge(
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:codedeploy:${shown(stack.region, 'AWS::Region')}:${shown(stack.account, 'AWS::AccountId')}:deploymentgroup:<${logicalId(parts.releases)}>/*]`,
      "The pre-traffic hook reads the deployment it is called for, of any deployment group of this stack's CodeDeploy application (one group per function).",
    );
  }
  if (parts.hook) {
    acknowledge(
      `AwsSolutions-IAM5[Resource::<${logicalId(parts.hook)}.Arn>:*]`,
      'CodeDeploy invokes the pre-traffic hook, whichever of its versions (CDK grants its role the function and its qualifiers).',
    );
  }
  for (const fn of parts.checked ?? []) {
    acknowledge(
      `AwsSolutions-IAM5[Resource::<${logicalId(fn)}.Arn>:*]`,
      'The pre-traffic hook reads and invokes the new version of each function of its stack: any version (`:*`), so that the permission exists before the version it checks does.',
    );
  }
  if (parts.migrations) {
    // CDK's Provider framework: its functions invoke each other (and ours) and its waiter state machine.
    const invoked = parts.migrations.node.findAll().filter((construct): construct is LambdaFunction => construct instanceof LambdaFunction);
    for (const fn of [...invoked, parts.migrations.onEventHandler, ...(parts.migrations.isCompleteHandler ? [parts.migrations.isCompleteHandler] : [])]) {
      acknowledge(
        `AwsSolutions-IAM5[Resource::<${logicalId(fn)}.Arn>:*]`,
        "CDK's Provider framework invokes the migrations' handlers and its own, whichever of their versions (it grants the function and its qualifiers).",
      );
    }
    acknowledge('AwsSolutions-SF1', "The Provider framework's waiter state machine only polls the migrations' isComplete every 10 s; the migrations log every step themselves.");
    acknowledge('AwsSolutions-SF2', "The Provider framework's waiter state machine takes no X-Ray option; the migrations' own functions are traced.");
  }
  acknowledge(
    'AwsSolutions-APIG4',
    "Every protected route authenticates in its function: Thelia's Token key and the HMAC `sign` of the body, which an API Gateway authorizer cannot check (it never sees the body). The health check, the API reference and the catch-all are open on purpose (docs/api-keys.md).",
  );
  acknowledge(
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    'The standard managed policy that lets a function write its own logs (CreateLogGroup, CreateLogStream, PutLogEvents); nothing else.',
  );
  acknowledge('AwsSolutions-IAM5[Resource::<StoreTable0CCFA19B.Arn>/index/*]', "The routes that list may Query the store table's own indexes, and nothing but the indexes of that one table.");
  acknowledge('AwsSolutions-IAM5[Resource::*]', 'X-Ray active tracing: PutTraceSegments and PutTelemetryRecords take no resource but *.');
  acknowledge('AwsSolutions-SQS3', "The change events' queue is itself the dead-letter queue: the stream mapping's on-failure destination, watched by an alarm.");
  acknowledge(
    'AwsSolutions-SMG4',
    "Rotating the server secret invalidates the cursors and Idempotency-Key fingerprints handed out before (docs/operating.md): it is rotated by hand, when wanted, not on a schedule. A stage key (the release check's, the smoke check's) is replaced with its secret, by a deploy.",
  );
}
