/** The migrations custom resource of the stack, run before any alias shifts (lib/deploy/migrations-resource.ts). */
import { handleMigrationsEvent, type CustomResourceEvent } from '../../lib/deploy/migrations-resource.js';

export const handler = (event: CustomResourceEvent) => handleMigrationsEvent(event);
