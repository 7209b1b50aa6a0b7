import path from 'node:path';
import express, { type Express } from 'express';
import { html } from '../dashboard/html';
import { PAGE_HEADERS } from '../dashboard/headers';

// The API reference at /docs: Swagger UI (swagger-ui-dist, the project's own
// build) over /openapi.json. The page is ours, so it has no inline script or
// style and is sent with the dashboard's headers (CSP, frame-ancestors 'none',
// nosniff); Swagger UI's assets are served from this origin.

const SWAGGER_UI_DIST = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const page = html`<!doctype html>
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>Transcript Service API</title>
      <link rel="stylesheet" href="/docs/swagger-ui.css" />
      <link rel="stylesheet" href="/docs/static/docs.css" />
      <script src="/docs/swagger-ui-bundle.js" defer></script>
      <script src="/docs/static/docs-init.js" defer></script>
    </head>
    <body>
      <main id="swagger-ui"></main>
    </body>
  </html>`.text;

/** Only the two Swagger UI files the page loads (the package's own index.html has inline script). */
const SWAGGER_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js'];

export function mountDocs(app: Express): void {
  const assetHeaders = { ...PAGE_HEADERS, 'Cache-Control': 'public, max-age=3600' };
  app.get(['/docs', '/docs/'], (_req, res) => void res.status(200).set(PAGE_HEADERS).type('html').send(page));
  for (const file of SWAGGER_FILES) {
    app.get(`/docs/${file}`, (_req, res) => res.set(assetHeaders).sendFile(path.join(SWAGGER_UI_DIST, file)));
  }
  app.use('/docs/static', express.static(path.join(__dirname, 'static'), { index: false, setHeaders: (res) => res.set(assetHeaders) }));
}
