/**
 * node:util as the functions' bundles see it (esbuild's alias, `BUNDLE.substitutes` in
 * infra/constructs/bundled-function.ts), as lib/node-http.ts is node:http's: importing it as an ES
 * module reads every export, and some of them load its argument parser, its diff and
 * worker_threads, for the one `isDeepStrictEqual` of ours. A name a bundled module imports and this
 * lacks fails the build, naming it.
 */
const util = process.getBuiltinModule('node:util');

export default util;
export const isDeepStrictEqual = /* @__PURE__ */ (() => util.isDeepStrictEqual)();
