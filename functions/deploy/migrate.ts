/**
 * The migrations custom resource's two handlers for CDK's Provider framework (lib/deploy/migrations-resource.ts):
 * `handler` (onEvent) and `isComplete`, which runs the steps, each deployed as a function of its own.
 */
import type { Context } from 'aws-lambda';
import { migrationsComplete, onMigrationsEvent, type CustomResourceEvent } from '../../lib/deploy/migrations-resource.js';

export const handler = (event: CustomResourceEvent) => onMigrationsEvent(event);
export const isComplete = (event: CustomResourceEvent, context: Context) => migrationsComplete(event, () => context.getRemainingTimeInMillis());
