import fs from 'node:fs';
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

/** Where `npm run docs` (stack/docs.ts) builds the documentation site. */
export const GUIDE_DIR = path.join(__dirname, '../../dist/docs');

/**
 * The documentation site at /guide/ (docs/, built by VitePress): static files with the pages' headers. Its CSP names
 * the hashes of the few inline scripts VitePress writes (the colour scheme, the page map), computed at build time
 * into csp.json, so no other inline script runs; its styles may be inline (the theme sets some). Not built yet:
 * 404 saying how to build it.
 */
export function mountGuide(app: Express, dir = GUIDE_DIR): void {
  // Express matches /guide/ to a /guide route too: only the bare path is sent on to the folder.
  app.get('/guide', (req, res, next) => (req.path === '/guide' ? res.redirect(301, '/guide/') : next()));
  app.use('/guide', (req, res, next) => {
    if (!fs.existsSync(path.join(dir, 'index.html'))) {
      res.status(404).set(PAGE_HEADERS).type('text').send('The documentation site is not built: run `npm run docs`.');
      return;
    }
    next();
  });
  let csp: string | undefined;
  const headers = () => {
    csp ??= guideCsp(dir);
    return { ...PAGE_HEADERS, 'Content-Security-Policy': csp, 'Cache-Control': 'public, max-age=300' };
  };
  app.use('/guide', express.static(dir, { extensions: ['html'], setHeaders: (res) => res.set(headers()) }));
}

function guideCsp(dir: string): string {
  const hashes = fs.existsSync(path.join(dir, 'csp.json'))
    ? (JSON.parse(fs.readFileSync(path.join(dir, 'csp.json'), 'utf8')) as string[])
    : [];
  return [
    "default-src 'none'",
    `script-src 'self' ${hashes.map((h) => `'${h}'`).join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}
