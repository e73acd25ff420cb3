/**
 * node:http as the functions' bundles see it (esbuild's alias, `BUNDLE.substitutes` in
 * infra/constructs/bundled-function.ts): the exports their modules name, each read from the
 * built-in only when a module imports it. Importing a built-in as an ES module builds its namespace
 * from every export and reads each one; node:http's include Node's fetch and WebSocket, whose
 * undici then loads: some 15 ms of every cold start (`npm run bench`), for the reason phrases
 * every protected route reads. `process.getBuiltinModule` is no import: it reads none. A name a bundled module
 * imports and this lacks fails the build, naming it.
 */
const http = process.getBuiltinModule('node:http');

export default http;
/** Problem titles (lib/http/problem.ts) and @middy/util's HttpError: the reason phrases. */
export const STATUS_CODES = /* @__PURE__ */ (() => http.STATUS_CODES)();
/** A webhook's delivery over `http`, to 127.0.0.1 only (lib/webhooks/deliver.ts). */
export const Agent = /* @__PURE__ */ (() => http.Agent)();
export const request = /* @__PURE__ */ (() => http.request)();
