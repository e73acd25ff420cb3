/**
 * STORE_SMOKE_KEY=<apiKey>:<secureKey> npm run smoke -- --url <base URL>
 *
 * Checks a deployment as a client would (CONTRACT §13): the health route, a signed read, and a
 * create → read → delete round trip of a throwaway tax rule, on a key made for it
 * (`npm run api-key -- create --label smoke --grant tax:VIEW,CREATE,DELETE`). Prints one line per
 * check; exits 0 only when all hold, 1 when one failed (named), 2 when it was not given what it
 * needs. The pipeline's post-deploy step runs it (infra/pipeline-app.ts).
 */
import { parseArgs } from 'node:util';
import { signBody } from '../http/auth.js';

const USAGE = 'usage: STORE_SMOKE_KEY=<apiKey>:<secureKey> npm run smoke -- --url <base URL, such as https://abc.execute-api.eu-west-1.amazonaws.com>';
/** Each request's own time: a deployment that does not answer is a failure, not a hang. */
const REQUEST_TIMEOUT_MS = 15_000;

interface Answer {
  status: number;
  text: string;
}

class CheckFailed extends Error {}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { url: { type: 'string' } } });
  const [apiKey, secureKey] = (process.env.STORE_SMOKE_KEY ?? '').split(':');
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
    return { status: response.status, text: await response.text() };
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
    const answer = expectStatus(await fetch(`${base}/api`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }).then(async (r) => ({ status: r.status, text: await r.text() })), 200);
    if (answer.text !== 'OK') throw new CheckFailed(`answered ${JSON.stringify(answer.text.slice(0, 100))}, not "OK"`);
  });
  await check('signed read: GET /api/tax-rules?limit=1 answers 200 with loop rows', async () => {
    if (!Array.isArray(JSON.parse(expectStatus(await send('GET', '/api/tax-rules?limit=1'), 200).text))) throw new CheckFailed('did not answer an array of rows');
  });
  const title = `store-api smoke ${new Date().toISOString()}`;
  const id = await check('create: POST /api/tax-rules answers 201 with the new rule', async () => {
    const [row] = JSON.parse(expectStatus(await send('POST', '/api/tax-rules', { country: [64], tax: [1], i18n: [{ locale: 'en_US', title }] }), 201).text) as Array<{ ID: number }>;
    if (!row?.ID) throw new CheckFailed('its row has no ID');
    return row.ID;
  });
  if (id === undefined) {
    console.log('skip  read and delete: nothing was created');
  } else {
    await check(`read: GET /api/tax-rules/${id} answers the rule created`, async () => {
      const [row] = JSON.parse(expectStatus(await send('GET', `/api/tax-rules/${id}?lang=en_US`), 200).text) as Array<{ TITLE: string }>;
      if (row?.TITLE !== title) throw new CheckFailed(`its TITLE is ${JSON.stringify(row?.TITLE)}, not ${JSON.stringify(title)}`);
    });
    await check(`delete: DELETE /api/tax-rules/${id} answers 204, and the rule is gone`, async () => {
      expectStatus(await send('DELETE', `/api/tax-rules/${id}`), 204);
      expectStatus(await send('GET', `/api/tax-rules/${id}`), 404);
    });
  }
  console.log(failed ? `smoke: ${failed} check(s) failed on ${base}` : `smoke: every check held on ${base}`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`smoke failed: ${error.message}\n${USAGE}`);
    process.exit(2);
  },
);
