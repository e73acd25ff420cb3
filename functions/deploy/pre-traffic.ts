/** CodeDeploy's pre-traffic hook of every route's gradual release (lib/deploy/pre-traffic.ts). */
import { readFile } from 'node:fs/promises';
import { checkDeployment, sampleFileOf, type PreTrafficEvent } from '../../lib/deploy/pre-traffic.js';
import { readSecret, stageKeyOf } from '../../lib/deploy/stage-keys.js';
import { log } from '../../lib/log.js';
import { routes } from '../../lib/routes.js';

/** A route's sample is shipped beside this bundle (infra: the hook's assets). */
const sampleOf = async (route: string) => JSON.parse(await readFile(new URL(`./${sampleFileOf(route)}`, import.meta.url), 'utf8'));

export const handler = async (event: PreTrafficEvent): Promise<void> => {
  const outcome = await checkDeployment(
    event,
    async (name) => {
      const route = routes.find((r) => r.name === name);
      return route && { route: route.name, status: route.status, permission: route.permission, sample: await sampleOf(route.name) };
    },
    // The stage's release-check key (infra: the hook may read its secret, and only it).
    async () => stageKeyOf(await readSecret(process.env.STORE_RELEASE_CHECK_KEY_ARN ?? '')),
  );
  log(outcome.status === 'Succeeded' ? 'info' : 'error', 'pre-traffic check', { deploymentId: event.DeploymentId, ...outcome });
};
