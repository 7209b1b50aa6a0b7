import path from 'node:path';
import { build } from 'esbuild';
import type { Router } from 'express';
import { PAGE_HEADERS } from './headers';

// The dashboard's scripts are TypeScript (api/dashboard/browser/, checked by its own tsconfig in stack/check.sh),
// bundled by esbuild into one classic script each, once per process, the first time a page asks for it: no build
// step to forget, and the API serves the same bytes from every instance.

// listen-worklet runs in the playground's AudioWorklet (loaded by listen.ts, not by a script tag).
export const DASHBOARD_SCRIPTS = ['dashboard', 'playground', 'listen-worklet'] as const;

const bundles = new Map<string, Promise<string>>();

/** The bundled script of one entry point in api/dashboard/browser/. */
export function dashboardScript(name: (typeof DASHBOARD_SCRIPTS)[number]): Promise<string> {
  let bundle = bundles.get(name);
  if (!bundle) {
    bundle = build({
      entryPoints: [path.join(__dirname, 'browser', `${name}.ts`)],
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      write: false,
      legalComments: 'none',
    }).then(({ outputFiles }) => outputFiles[0]!.text);
    // A failed build is tried again on the next request rather than kept.
    bundle.catch(() => bundles.delete(name));
    bundles.set(name, bundle);
  }
  return bundle;
}

export function mountDashboardScripts(router: Router): void {
  for (const name of DASHBOARD_SCRIPTS) {
    router.get(`/dashboard/static/${name}.js`, async (_req, res) => {
      res
        .status(200)
        .set(PAGE_HEADERS)
        .set('Cache-Control', 'public, max-age=3600')
        .type('text/javascript')
        .send(await dashboardScript(name));
    });
  }
}
