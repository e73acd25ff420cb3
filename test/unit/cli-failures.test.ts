/** How a failed command says why (lib/cli/usage.ts): the call's fault with the usage, the run's with its cause. */
import { describe, expect, it } from 'vitest';
import { Unavailable } from '../../lib/db/errors.js';
import { failureText, UsageError } from '../../lib/cli/usage.js';

const USAGE = 'Usage: npm run import -- --from <mysql url>';

describe('failureText', () => {
  it('follows a fault in the call with the usage', () => {
    expect(failureText('import failed: ', new UsageError('--from is required'), USAGE)).toBe(`import failed: --from is required\n${USAGE}`);
  });

  it('says a fault of the run by its message, pointing at --help rather than printing the usage', () => {
    expect(failureText('import failed: ', new Error('Access denied for user thelia'), USAGE)).toBe('import failed: Access denied for user thelia\n(--help shows how to call it)');
  });

  it('names what caused a wrapped error, by its first line', () => {
    const timedOut = Object.assign(new Error('Request timed out after 2500 ms\n    at the SDK'), { name: 'TimeoutError' });
    expect(failureText('import failed: ', new Unavailable(timedOut), USAGE)).toBe(
      'import failed: the database is busy or unavailable (TimeoutError: Request timed out after 2500 ms)\n(--help shows how to call it)',
    );
  });
});
