/**
 * STORE_SMOKE_KEY=<apiKey>:<secureKey> npm run smoke -- --url <base URL>
 * npm run smoke -- --url <base URL> --key-secret <secret>   the stage's own smoke key (StoreApiProps.smokeKey)
 *
 * Checks a deployment as a client would (docs/deploying.md): the health route, a signed read, and a
 * create → read → delete round trip of a throwaway tax rule, on a key made for it
 * (`npm run api-key -- create --label smoke --grant tax:VIEW,CREATE,DELETE`), or the one a stage made
 * for it, read from its secret (the `SmokeKeySecretArn` output). Prints one line per
 * check; exits 0 only when all hold, 1 when one failed (named), 2 when it was not given what it
 * needs. Whatever fails, it deletes the rule it made (its delete tried again on a 429, a 5xx or no
 * answer; a create whose outcome is unknown looked for by its title), or names what it left behind.
 * The pipeline's post-deploy step runs it (infra/pipeline-app.ts).
 */
import { setTimeout as pause } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { readSecret, stageKeyOf } from '../deploy/stage-keys.js';
import { signBody } from '../api-keys/signature.js';
import { failureText } from './usage.js';

const USAGE =
  'usage: STORE_SMOKE_KEY=<apiKey>:<secureKey> npm run smoke -- --url <base URL, such as https://abc.execute-api.eu-west-1.amazonaws.com>\n' +
  '   or: npm run smoke -- --url <base URL> --key-secret <the SmokeKeySecretArn output of a stage made with a smoke key>';
/** Each request's own time: a deployment that does not answer is a failure, not a hang. */
const REQUEST_TIMEOUT_MS = 15_000;

interface Answer {
  status: number;
  text: string;
  headers: Headers;
}

/** Attempts of the throwaway rule's delete, and the waits between them. */
const DELETE_WAITS_MS = [1_000, 2_000, 4_000];

class CheckFailed extends Error {}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { url: { type: 'string' }, 'key-secret': { type: 'string' } } });
  const secret = values['key-secret'];
  const [givenKey, givenSecureKey] = (process.env.STORE_SMOKE_KEY ?? '').split(':');
  const { apiKey, secureKey } = secret ? stageKeyOf(await readSecret(secret)) : { apiKey: givenKey, secureKey: givenSecureKey };
  if (!values.url || !apiKey || !secureKey) {
    console.error(USAGE);
    return 2;
  }
  const base = values.url.replace(/\/+$/, '');
  const send = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const sign = signBody(secureKey, raw);
    const response = await fetch(`${base}${path}${path.includes('?') ? '&' : '?'}sign=${sign}`, {
      method,
      headers: { Authorization: `Token ${apiKey}`, ...(raw ? { 'Content-Type': 'application/json' } : {}) },
      ...(raw ? { body: raw } : {}),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    return { status: response.status, text: await response.text(), headers: response.headers };
  };
  const expectStatus = (answer: Answer, status: number): Answer => {
    if (answer.status !== status) throw new CheckFailed(`answered ${answer.status}, not ${status}: ${answer.text.slice(0, 200)}`);
    return answer;
  };

  let failed = 0;
  const check = async <T>(name: string, run: () => Promise<T>): Promise<T | undefined> => {
    try {
      const result = await run();
      console.log(`ok    ${name}`);
      return result;
    } catch (error) {
      failed++;
      console.log(`FAIL  ${name}: ${error instanceof CheckFailed ? error.message : `${(error as Error).name}: ${(error as Error).message}`}`);
      return undefined;
    }
  };

  await check('health: GET /api answers 200 OK', async () => {
    const answer = expectStatus(
      await fetch(`${base}/api`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).then(async (r) => ({ status: r.status, text: await r.text(), headers: r.headers })),
      200,
    );
    if (answer.text !== 'OK') throw new CheckFailed(`answered ${JSON.stringify(answer.text.slice(0, 100))}, not "OK"`);
  });
  await check('signed read: GET /api/tax-rules?limit=1 answers 200 with loop rows', async () => {
    if (!Array.isArray(JSON.parse(expectStatus(await send('GET', '/api/tax-rules?limit=1'), 200).text))) throw new CheckFailed('did not answer an array of rows');
  });
  const title = `store-api smoke ${new Date().toISOString()}`;
  /** Whether a create answered so may have made the rule: no answer, or a 5xx (its outcome unknown). */
  let outcomeUnknown = false;
  const id = await check('create: POST /api/tax-rules answers 201 with the new rule', async () => {
    let answer: Answer;
    try {
      answer = await send('POST', '/api/tax-rules', { country: [64], tax: [1], i18n: [{ locale: 'en_US', title }] });
    } catch (error) {
      outcomeUnknown = true;
      throw error;
    }
    outcomeUnknown = answer.status >= 500;
    const [row] = JSON.parse(expectStatus(answer, 201).text) as Array<{ ID: number }>;
    if (!row?.ID) throw new CheckFailed('its row has no ID');
    return row.ID;
  });

  /** Deletes rule `ruleId`, again after a 429, a 5xx or no answer; what stands in the way when it could not. */
  const deleteRule = async (ruleId: number): Promise<string | undefined> => {
    let last = '';
    for (const wait of [0, ...DELETE_WAITS_MS]) {
      await pause(wait);
      try {
        const answer = await send('DELETE', `/api/tax-rules/${ruleId}`);
        if (answer.status === 204 || answer.status === 404) return undefined;
        last = `its delete answered ${answer.status}: ${answer.text.slice(0, 200)}`;
        if (answer.status !== 429 && answer.status < 500) return last;
      } catch (error) {
        last = `its delete got no answer (${(error as Error).message})`;
      }
    }
    return `${last} (${DELETE_WAITS_MS.length + 1} attempts)`;
  };

  /** The rule a create of unknown outcome may have made, found by its title (undefined: none); throws when the rules cannot be listed. */
  const findByTitle = async (): Promise<number | undefined> => {
    let path: string | undefined = '/api/tax-rules?limit=100&lang=en_US';
    while (path) {
      const answer = expectStatus(await send('GET', path), 200);
      const found = (JSON.parse(answer.text) as Array<{ ID: number; TITLE: string }>).find((row) => row.TITLE === title);
      if (found) return found.ID;
      const cursor = answer.headers.get('X-Next-Cursor');
      path = cursor ? `/api/tax-rules?limit=100&lang=en_US&cursor=${encodeURIComponent(cursor)}` : undefined;
    }
    return undefined;
  };

  let leftBehind: string | undefined;
  if (id !== undefined) {
    await check(`read: GET /api/tax-rules/${id} answers the rule created`, async () => {
      const [row] = JSON.parse(expectStatus(await send('GET', `/api/tax-rules/${id}?lang=en_US`), 200).text) as Array<{ TITLE: string }>;
      if (row?.TITLE !== title) throw new CheckFailed(`its TITLE is ${JSON.stringify(row?.TITLE)}, not ${JSON.stringify(title)}`);
    });
    await check(`delete: DELETE /api/tax-rules/${id} answers 204, and the rule is gone`, async () => {
      const refused = await deleteRule(id);
      if (refused) {
        leftBehind = `tax rule ${id} ${JSON.stringify(title)}: ${refused}; delete it with DELETE /api/tax-rules/${id}`;
        throw new CheckFailed(refused);
      }
      expectStatus(await send('GET', `/api/tax-rules/${id}`), 404);
    });
  } else if (outcomeUnknown) {
    // The create may have been applied though its answer did not say so: the rule is looked for by its title.
    const found = await findByTitle().catch((error: Error) => {
      leftBehind = `perhaps a tax rule titled ${JSON.stringify(title)}: its create's outcome is unknown, and the rules could not be listed to find it (${error.message})`;
      return undefined;
    });
    if (found !== undefined) {
      const refused = await deleteRule(found);
      if (refused) leftBehind = `tax rule ${found} ${JSON.stringify(title)}, made by a create that did not answer 201: ${refused}; delete it with DELETE /api/tax-rules/${found}`;
      else console.log(`clean up: tax rule ${found}, made by a create that did not answer 201, deleted`);
    } else if (!leftBehind) console.log('skip  read and delete: nothing was created');
  } else console.log('skip  read and delete: nothing was created');
  if (leftBehind) console.log(`left behind: ${leftBehind}`);
  console.log(failed ? `smoke: ${failed} check(s) failed on ${base}` : `smoke: every check held on ${base}`);
  return failed || leftBehind ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(failureText('smoke failed: ', error, USAGE));
    process.exit(2);
  },
);
