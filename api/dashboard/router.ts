import path from 'node:path';
import express, { type Router } from 'express';
import type { AppDeps } from '../http/context';
import { PAGE_HEADERS } from './headers';
import { dashboardPages } from './kit';
import { mountBillingPages } from './pages/billing';
import { mountJobPages } from './pages/jobs';
import { mountSearchPages } from './pages/search';
import { mountKeyPages } from './pages/keys';
import { mountProfilePages } from './pages/profile';
import { mountSignInPages } from './pages/sign-in';
import { mountUsagePages } from './pages/usage';
import { mountWebhookPages } from './pages/webhooks';
import { mountDashboardScripts } from './scripts';

export { DASHBOARD_CSP, PAGE_HEADERS } from './headers';

/** The dashboard: server-rendered pages by area (api/dashboard/pages/), their forms run through the REST routes they stand for. */
export function dashboardRouter(deps: AppDeps): Router {
  const router = express.Router();
  mountDashboardScripts(router);
  router.use(
    '/dashboard/static',
    express.static(path.join(__dirname, 'static'), {
      maxAge: '1h',
      index: false,
      fallthrough: true,
      setHeaders: (r) => r.set(PAGE_HEADERS).set('Cache-Control', 'public, max-age=3600'),
    }),
  );
  const pages = dashboardPages(deps, router);
  for (const mount of [
    mountSignInPages,
    mountUsagePages,
    mountKeyPages,
    mountJobPages,
    mountSearchPages,
    mountWebhookPages,
    mountBillingPages,
    mountProfilePages,
  ])
    mount(pages);
  return router;
}
