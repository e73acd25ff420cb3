import { readFile } from 'node:fs/promises';
import { defineOpenHandler, Document } from '../../lib/http/open-handler.js';

/**
 * GET /api/docs: the API reference as a page, Swagger UI rendering /api/openapi.json, with every
 * file served from here (no CDN: it works offline). Swagger UI's files (about 1.9 MB) are read on
 * the first request, never at init: beside the bundle on Lambda (the route's `assets`), from
 * node_modules when the local server runs this module.
 */
async function asset(name: string): Promise<string> {
  for (const place of [new URL(`./${name}`, import.meta.url), new URL(`../../node_modules/swagger-ui-dist/${name}`, import.meta.url)]) {
    try {
      return await readFile(place, 'utf8');
    } catch {
      // Not here: the next place.
    }
  }
  throw new Error(`${name} is missing`);
}

// Inline, a script must not close its own element early.
const inlineScript = (code: string) => code.replaceAll('</script', '<\\/script');

async function renderPage(): Promise<Document> {
  const [css, js] = await Promise.all([asset('swagger-ui.css'), asset('swagger-ui-bundle.js')]);
  return new Document(
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>store-api reference</title>
<style>${css}</style>
</head>
<body>
<div id="reference"></div>
<script>${inlineScript(js)}</script>
<script>
window.ui = SwaggerUIBundle({ url: new URL('openapi.json', window.location.href).href, dom_id: '#reference', docExpansion: 'list', defaultModelsExpandDepth: 0, deepLinking: true });
</script>
</body>
</html>
`,
    'text/html; charset=utf-8',
  );
}

let page: Promise<Document> | undefined;

export const handler = defineOpenHandler(
  'docs/get',
  () =>
    (page ??= renderPage().catch((error: unknown) => {
      page = undefined;
      throw error;
    })),
);
