import cookieParser from 'cookie-parser';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { AppDeps } from './http/context';
import {
  accessLog,
  traceRequest,
  errorHandler,
  metricsRegistry,
  registeredRoutes,
  reportLoad,
  requestId,
  unmatchedRoute,
  type KnownRoute,
} from './http/middleware';
import { jsonBodyParser } from './http/json-body';
import { checkRequestTarget } from './http/request-target';
import type { Drain } from './http/drain';
import { mount } from './http/route';
import { mountDocs, mountGuide } from './docs';
import { buildAsyncApiDocument } from './listen/asyncapi';
import { buildOpenApiDocument } from './openapi';
import { allRoutes } from './routes';
import { JOB_BODY_LIMIT_BYTES } from '../domain/schemas/jobs';
import { dashboardRouter } from './dashboard/router';
import { createLocalUploadHandler } from '../integrations/storage';
import { POLLER_FRESH_SECONDS, queuePollers } from '../integrations/temporal-pollers';
import { mountMcp } from './mcp/server';
import { mountSignedMedia } from './mcp/app/transcript-app';
import { mountOAuth } from './oauth/provider';
import { bearerChallenge } from './oauth/resources';

export function createApp(deps: AppDeps, opts: { drain?: Drain } = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  // req.ip (the key of the per-address limits) from X-Forwarded-For only when the peer is a trusted proxy.
  app.set('trust proxy', deps.config.TRUST_PROXY);
  app.use(requestId);
  app.use(traceRequest);
  app.use(accessLog(deps.logger));
  // A process told to stop answers new requests 503 while those in flight finish (api/http/drain.ts).
  if (opts.drain) app.use(opts.drain.middleware);
  // The writes in flight: while they queue, workflow starts wait (api/http/request-load.ts).
  app.use(deps.requestLoad.middleware);
  reportLoad(deps);
  // A path or query string no decoder can read, or holding NUL, is refused here (400/422), before any router.
  app.use(checkRequestTarget);

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
  // The deeper check for operators and the compose file: does anything run the jobs? (README, "Readiness")
  app.get('/readyz/workers', async (_req, res) => {
    const report = await workerReadiness(deps);
    res.status(report.status === 'ready' ? 200 : 503).json(report);
  });
  app.get('/metrics', async (_req, res) => {
    res.type(metricsRegistry.contentType).send(await metricsRegistry.metrics());
  });

  const openapi = buildOpenApiDocument(allRoutes, deps.baseUrl);
  app.get('/openapi.json', (_req, res) => {
    res.json(openapi);
  });
  // GET /v1/listen's WebSocket messages (api/listen/asyncapi.ts).
  const asyncapi = buildAsyncApiDocument(deps.baseUrl);
  app.get('/asyncapi.json', (_req, res) => {
    res.json(asyncapi);
  });
  mountDocs(app);
  mountGuide(app);

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
  app.use(cookieParser(), stringCookiesOnly);
  // Stripe's events are verified over the exact bytes sent: kept raw on that path (the JSON parser then skips it).
  app.use('/ingress/stripe', express.raw({ type: () => true, limit: deps.config.BODY_LIMIT_BYTES }));
  // OAuth 2.1 for agents (api/oauth/provider.ts): before any body parser, its endpoints read their own form bodies.
  mountOAuth(app, deps);
  // The web dashboard (api/dashboard/): server-rendered pages with HTML forms, so before the JSON parser.
  // Only its paths enter its router: an API request does not walk the dashboard's routes.
  const dashboard = dashboardRouter(deps);
  app.use((req, res, next) => (req.path.startsWith('/dashboard') || req.path.startsWith('/app/') ? dashboard(req, res, next) : next()));
  // The agent tool server (MCP Streamable HTTP, stateless): api/mcp/server.ts. It reads its own body (errors as JSON-RPC).
  mountMcp(app, deps);
  mountSignedMedia(app, deps);

  // API bodies are JSON (api/http/json-body.ts): size and nesting limits documented in the OpenAPI description;
  // a JSON route refuses any other body with 415.
  // The requests that create jobs carry align_text, which may be long (domain/schemas/jobs.ts JOB_BODY_LIMIT_BYTES);
  // the parser that reads a body first is the one that counts.
  app.post(['/v1/jobs', '/v1/batches'], jsonBodyParser(Math.max(JOB_BODY_LIMIT_BYTES, deps.config.BODY_LIMIT_BYTES)));
  app.use(jsonBodyParser(deps.config.BODY_LIMIT_BYTES));

  const router = express.Router();
  mount(router, allRoutes, deps);
  app.use(router);

  const pagePaths = [
    '/healthz',
    '/readyz',
    '/readyz/workers',
    '/metrics',
    '/openapi.json',
    '/asyncapi.json',
    ...(deps.config.APP_ENV !== 'production' ? ['/app/dev/outbox'] : []),
  ];
  const pages: KnownRoute[] = [...pagePaths.map((path) => ({ method: 'get', path })), { method: 'get', path: '/media/transcripts/:id' }];
  app.use(unmatchedRoute([...allRoutes, ...pages, ...registeredRoutes(dashboard)]));
  app.use(errorHandler(deps.logger, (error) => bearerChallenge(deps.baseUrl, 'api', error)));
  return app;
}

/**
 * cookie-parser turns a value starting with `j:` into parsed JSON; no cookie of
 * ours is JSON, so a value that is not a string (`ts_session=j:{"a":1}`) counts
 * as absent instead of reaching code that expects a string.
 */
function stringCookiesOnly(req: Request, _res: Response, next: NextFunction): void {
  const cookies = (req as Request & { cookies?: Record<string, unknown> }).cookies;
  if (cookies) for (const [name, value] of Object.entries(cookies)) if (typeof value !== 'string') delete cookies[name];
  next();
}

/**
 * Whether the job task queue has live workflow and activity pollers (the
 * TypeScript workers) and, with the embedded recognizer, whether the
 * recognition task queue has live activity pollers (the Python recognizers):
 * without them accepted jobs wait. Not part of /readyz: an API instance whose
 * workers are down still accepts work, which waits durably for them.
 */
async function workerReadiness(deps: AppDeps) {
  const ns = deps.config.TEMPORAL_NAMESPACE;
  const queues: { name: string; role: 'jobs' | 'recognition'; needs: ('workflow' | 'activity')[] }[] = [
    { name: deps.config.TEMPORAL_TASK_QUEUE, role: 'jobs', needs: ['workflow', 'activity'] },
    ...(deps.config.RECOGNIZER === 'whisper'
      ? [{ name: deps.config.RECOGNITION_TASK_QUEUE, role: 'recognition' as const, needs: ['activity' as const] }]
      : []),
  ];
  const task_queues: Record<string, { role: string; workflow_pollers: number; activity_pollers: number; status: string }> = {};
  let ready = true;
  for (const q of queues) {
    try {
      const pollers = await queuePollers(deps.temporal, ns, q.name);
      const ok = q.needs.every((kind) => pollers[kind].length > 0);
      ready &&= ok;
      task_queues[q.name] = {
        role: q.role,
        workflow_pollers: pollers.workflow.length,
        activity_pollers: pollers.activity.length,
        status: ok ? 'ok' : 'no_workers',
      };
    } catch {
      ready = false;
      task_queues[q.name] = { role: q.role, workflow_pollers: 0, activity_pollers: 0, status: 'temporal_unreachable' };
    }
  }
  return { status: ready ? 'ready' : 'not_ready', poller_fresh_seconds: POLLER_FRESH_SECONDS, task_queues };
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
