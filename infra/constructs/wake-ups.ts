import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { EventSourceMapping, FilterCriteria, StartingPosition, type IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';

/**
 * What wakes a background job of the store (the feed's placer, the webhooks' worker): the table's
 * stream, filtered to the records it works on, and a schedule every minute whatever the stream does.
 * A wake-up only starts a run, which reads the table itself: it is not retried (the next record, or
 * the schedule, wakes it again), and what was there before the mapping is found by the first run.
 */
export function wakeUps(scope: Construct, target: IFunction, table: ITableV2, options: { filter: Record<string, unknown>; batchSize: number }): void {
  table.grantStreamRead(target);
  new EventSourceMapping(scope, 'FromStream', {
    target,
    eventSourceArn: table.tableStreamArn!,
    startingPosition: StartingPosition.LATEST,
    filters: [FilterCriteria.filter(options.filter)],
    batchSize: options.batchSize,
    retryAttempts: 0,
  });
  new Rule(scope, 'EveryMinute', { schedule: Schedule.rate(Duration.minutes(1)), targets: [new LambdaFunction(target, { retryAttempts: 0 })] });
}
