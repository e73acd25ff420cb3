// Runs one built Lambda asset as the Lambda runtime would, in this fresh process:
//   node run-built-function.mjs <bundle file> <export name> [event file]
// prints one JSON line: { importMs, invokeMs, response }.
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const [file, exportName, eventFile] = process.argv.slice(2);
// The SDK's keep-alive sockets would hold the process open, as they do a frozen Lambda's: exit once
// the line is written (a pipe is written asynchronously, and an answer may be megabytes).
const report = (result) => process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
const started = performance.now();
const module = await import(pathToFileURL(file).href);
const importMs = performance.now() - started;
if (!eventFile) {
  report({ importMs });
} else {
  const deadline = Date.now() + 15_000;
  const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'built-function';
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => deadline - Date.now(),
  };
  const invoked = performance.now();
  const response = await module[exportName](JSON.parse(readFileSync(eventFile, 'utf8')), context);
  report({ importMs, invokeMs: performance.now() - invoked, response });
}
