/**
 * A fact of the platform every layer may read, as lib/limits.ts (it imports nothing): an AWS client's configuration for an endpoint given in place of AWS's (DynamoDB Local, a test's
 * stand-in): a region, and the environment's credentials or placeholders, which such endpoints
 * accept. Nothing without one: the SDK's own resolution applies.
 */
export function endpointConfig(endpoint: string | undefined) {
  if (!endpoint) return {};
  return {
    endpoint,
    region: process.env.AWS_REGION ?? 'us-east-1',
    credentials:
      process.env.AWS_ACCESS_KEY_ID && process.env.AWS_SECRET_ACCESS_KEY
        ? { accessKeyId: process.env.AWS_ACCESS_KEY_ID, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY }
        : { accessKeyId: 'local', secretAccessKey: 'local' },
  };
}
