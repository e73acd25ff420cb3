/**
 * What this test file sent and was told, for the check that no secret leaves (table-per-file.ts):
 * apart from api.ts, so that the check loads none of the API for a unit test that makes no call.
 */

/** Every response of this test file and every password sent. */
export const responseLog: string[] = [];
export const passwordsSent = new Set<string>();
/** Every `sign` sent: each is a credential for the bodiless requests of its key. */
export const signsSent = new Set<string>();
/** Every log line the API wrote in this test file (test/support/table-per-file.ts keeps them). */
export const logLines: string[] = [];
