/** Classifies AWS SDK errors: which mean "DynamoDB is throttled or unavailable, retry later". */
const UNAVAILABLE = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'LimitExceededException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

export function isDynamoDbUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: string }).code;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return UNAVAILABLE.has(error.name) || (code !== undefined && NETWORK_CODES.has(code)) || (status !== undefined && status >= 500);
}
