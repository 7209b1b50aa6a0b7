import cookieParser from 'cookie-parser';
import express, { type Express } from 'express';
import swaggerUi from 'swagger-ui-express';
import type { AppDeps } from './http/context';
import { accessLog, errorHandler, metricsRegistry, requestId, unmatchedRoute, type KnownRoute } from './http/middleware';
import { mount } from './http/route';
import { buildOpenApiDocument } from './openapi';
import { allRoutes } from './routes';
import { DASHBOARD_ROUTES, dashboardRouter } from './dashboard/router';
import { createLocalUploadHandler } from '../integrations/storage';
import { mountMcp } from './mcp/server';
import { mountOAuth } from './oauth/provider';
import { bearerChallenge } from './oauth/resources';

export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // req.ip (the key of the per-address limits) from X-Forwarded-For only when the peer is a trusted proxy.
  app.set('trust proxy', deps.config.TRUST_PROXY);
  app.use(requestId);
  app.use(accessLog(deps.logger));

  // Operations: liveness, readiness, metrics.
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const checks = await readiness(deps);
    res
      .status(Object.values(checks).every((c) => c === 'ok') ? 200 : 503)
      .json({ status: Object.values(checks).every((c) => c === 'ok') ? 'ready' : 'not_ready', checks });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(metricsRegistry.contentType).send(await metricsRegistry.metrics());
  });

  const openapi = buildOpenApiDocument(allRoutes, deps.baseUrl);
  app.get('/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  app.use('/docs', swaggerUi.serve, swaggerUi.setup(openapi, { customSiteTitle: 'Transcript Service API' }));

  if (deps.config.APP_ENV !== 'production') {
    // Development outbox: no mail server is reachable, so mail is shown here.
    app.get('/app/dev/outbox', async (req, res) => {
      const to = typeof req.query.to === 'string' ? req.query.to.toLowerCase() : undefined;
      const mails = await deps.db.outboxEmail.findMany({ where: to ? { to } : {}, orderBy: { createdAt: 'desc' }, take: 50 });
      res.json({
        emails: mails.map((m) => ({ id: m.id, to: m.to, subject: m.subject, body: m.body, created_at: m.createdAt.toISOString() })),
      });
    });
  }

  // The local-disk store's signed PUT URLs (raw file bodies): before the JSON parser.
  app.use(createLocalUploadHandler(deps.objectStore));
  app.use(cookieParser());
  // Stripe's events are verified over the exact bytes sent: kept raw on that path (the JSON parser then skips it).
  app.use('/ingress/stripe', express.raw({ type: () => true, limit: deps.config.BODY_LIMIT_BYTES }));
  // OAuth 2.1 for agents (api/oauth/provider.ts): before any body parser, its endpoints read their own form bodies.
  mountOAuth(app, deps, { clientMetadataCaForTests: deps.oauthClientMetadataCaForTests });
  // The web dashboard (api/dashboard/): server-rendered pages with HTML forms, so before the JSON parser.
  // Only its paths enter its router: an API request does not walk the dashboard's routes.
  const dashboard = dashboardRouter(deps);
  app.use((req, res, next) => (req.path.startsWith('/dashboard') || req.path.startsWith('/app/') ? dashboard(req, res, next) : next()));
  // Every API body is JSON, whatever Content-Type says; the size limit is documented in the OpenAPI description.
  app.use(express.json({ limit: deps.config.BODY_LIMIT_BYTES, type: () => true, strict: false }));

  // The agent tool server (MCP Streamable HTTP, stateless): api/mcp/server.ts.
  mountMcp(app, deps);

  const router = express.Router();
  mount(router, allRoutes, deps);
  app.use(router);

  const pagePaths = [
    '/healthz',
    '/readyz',
    '/metrics',
    '/openapi.json',
    ...(deps.config.APP_ENV !== 'production' ? ['/app/dev/outbox'] : []),
  ];
  const pages: KnownRoute[] = pagePaths.map((path) => ({ method: 'get', path }));
  app.use(unmatchedRoute([...allRoutes, ...pages, ...DASHBOARD_ROUTES]));
  app.use(errorHandler(deps.logger, (error) => bearerChallenge(deps.baseUrl, 'api', error)));
  return app;
}

async function readiness(deps: AppDeps): Promise<Record<string, string>> {
  const withTimeout = async <T>(p: Promise<T>) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([p, new Promise<never>((_, rej) => (timer = setTimeout(() => rej(new Error('timeout')), 2000)))]);
    } finally {
      clearTimeout(timer);
    }
  };
  const [db, temporal] = await Promise.allSettled([
    withTimeout(deps.pool.query('SELECT 1')),
    withTimeout(deps.temporal.workflowService.getSystemInfo({})),
  ]);
  return { database: db.status === 'fulfilled' ? 'ok' : 'unreachable', temporal: temporal.status === 'fulfilled' ? 'ok' : 'unreachable' };
}
