import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response, Router } from 'express';
import type { Logger } from 'pino';
import client from 'prom-client';
import type { AppDeps } from './context';
import { ServiceError, type ErrorCode } from '../../core/errors';
import { unreachableDependency } from '../../integrations/dependency-errors';
import { sendError } from './envelope';
import { MAX_HOLD_MS } from '../../domain/start-dispatcher';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { logTraceFields, tracer, tracingOn } from '../../integrations/telemetry/tracing';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{8,128}$/;

/** Every response carries X-Request-Id; a sane incoming id is kept so traces join up. */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.get('x-request-id');
  const id = incoming && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
  res.locals.requestId = id;
  res.set('X-Request-Id', id);
  next();
}

/** Liveness, readiness and metrics: answered untraced. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/readyz/workers', '/metrics']);

/**
 * The request's SERVER span, the root of its trace (or a child of the caller's `traceparent`): named by its
 * route once routed ("POST /v1/jobs"), active for every handler, query and workflow start it causes.
 */
export function traceRequest(req: Request, res: Response, next: NextFunction): void {
  // Probes (every few seconds from each load balancer and orchestrator) would bury the traces people read.
  if (!tracingOn() || UNTRACED_PATHS.has(req.path)) return next();
  const parent = propagation.extract(context.active(), req.headers);
  const span = tracer().startSpan(
    req.method,
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': req.method, 'url.path': req.path, 'http.request_id': res.locals.requestId },
    },
    parent,
  );
  res.on('finish', () => {
    span.updateName(`${req.method} ${routeOf(req, res)}`);
    span.setAttribute('http.route', routeOf(req, res));
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: 2 });
    span.end();
  });
  context.with(trace.setSpan(parent, span), next);
}

/** The route template a request matched ("/v1/jobs/:id"), "unmatched" for a 404 that matched none, else the path. */
function routeOf(req: Request, res: Response): string {
  return (req.route?.path as string | undefined) ?? (res.statusCode === 404 ? 'unmatched' : req.path);
}

export const metricsRegistry = new client.Registry();
client.collectDefaultMetrics({ register: metricsRegistry });

export const httpRequestDuration = new client.Histogram({
  name: 'http_request_duration_seconds',
  help: 'API request latency by route and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [metricsRegistry],
});

/** The API whose load the gauges below read: one per process (in tests, the last app made). */
let loadSource: Pick<AppDeps, 'starts' | 'requestLoad'> | null = null;

new client.Gauge({
  name: 'api_writes_in_flight',
  help: 'Writes to /v1/ this API process is answering; from 8 on it holds its workflow starts (api/http/request-load.ts).',
  registers: [metricsRegistry],
  collect() {
    this.set(loadSource?.requestLoad.writesInFlight ?? 0);
  },
});

new client.Gauge({
  name: 'workflow_starts_waiting',
  help: `Workflow starts this API process accepted and has not made yet: held while it is busy (up to ${MAX_HOLD_MS / 1000} s each), or queued behind those in flight.`,
  registers: [metricsRegistry],
  collect() {
    this.set(loadSource?.starts.waitingCount ?? 0);
  },
});

/** Points the load gauges at this app's request counter and start dispatcher. */
export function reportLoad(deps: Pick<AppDeps, 'starts' | 'requestLoad'>): void {
  loadSource = deps;
}

/** One structured log line per request, with the request id, never a secret. */
export function accessLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    // The request's trace (traceRequest runs first), taken now: 'finish' is emitted outside the request's context.
    const traceFields = logTraceFields();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeOf(req, res);
      httpRequestDuration.labels(req.method, route, String(res.statusCode)).observe(seconds);
      logger.info(
        {
          request_id: res.locals.requestId,
          method: req.method,
          route,
          status: res.statusCode,
          duration_ms: Math.round(seconds * 1e4) / 10,
          error_code: res.locals.errorCode,
          ...traceFields,
        },
        'request',
      );
    });
    next();
  };
}

export interface KnownRoute {
  method: string;
  path: string;
}

/** The routes an Express router has registered (its `get`/`post`/… layers, each handler's method), as the 404/405 answer needs them. */
export function registeredRoutes(router: Router): KnownRoute[] {
  const seen = new Set<string>();
  return router.stack.flatMap((layer) =>
    (layer.route?.stack ?? [])
      .map((handler) => ({ method: handler.method, path: layer.route!.path }))
      .filter((r) => r.method && !seen.has(`${r.method} ${r.path}`) && seen.add(`${r.method} ${r.path}`)),
  );
}

/**
 * The answer for a request no route took: 405 with `Allow` when the path exists
 * for other methods, 404 otherwise. Paths are matched the way Express matches
 * them (case-insensitive, optional trailing slash, `:param` one segment).
 */
export function unmatchedRoute(routes: KnownRoute[]) {
  const byPattern = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  for (const r of routes) {
    const source = `^${r.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+')}/?$`;
    const entry = byPattern.get(source) ?? { pattern: new RegExp(source, 'i'), methods: new Set<string>() };
    entry.methods.add(r.method.toUpperCase());
    if (r.method.toUpperCase() === 'GET') entry.methods.add('HEAD');
    byPattern.set(source, entry);
  }
  return (req: Request, res: Response): void => {
    const allowed = new Set<string>();
    for (const { pattern, methods } of byPattern.values()) if (pattern.test(req.path)) methods.forEach((m) => allowed.add(m));
    if (allowed.size > 0) {
      const allow = [...allowed].sort().join(', ');
      res.set('Allow', allow);
      sendError(
        res,
        new ServiceError('METHOD_NOT_ALLOWED', `method:${req.method}`, { message: `${req.path} accepts ${allow}, not ${req.method}.` }),
      );
      return;
    }
    sendError(res, new ServiceError('NOT_FOUND', `route:${req.method} ${req.path}`, { message: `No route ${req.method} ${req.path}.` }));
  };
}

/** Seconds a client should wait before retrying while a dependency is down. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

// The body parser's own client errors, by status (it sets `status` and `expose`).
const BODY_PARSER_CODES: Record<number, ErrorCode> = { 400: 'BAD_REQUEST', 413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_ENCODING' };

/** The ServiceError a thrown value answers as; logs what is a real fault. */
export function toServiceError(err: unknown, logger: Logger, requestId: string): ServiceError {
  if (err instanceof ServiceError) return err;
  const e = err as { type?: string; status?: number; statusCode?: number; expose?: boolean; limit?: number; message?: string };
  if (e?.type === 'entity.parse.failed') return new ServiceError('INVALID_REQUEST', 'body', { message: 'The body is not valid JSON.' });
  if (e?.type === 'entity.too.large') {
    return new ServiceError('PAYLOAD_TOO_LARGE', `body_limit_bytes=${e.limit}`, {
      message: `The request body is larger than ${e.limit} bytes.`,
    });
  }
  const status = e?.status ?? e?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500 && e.expose) {
    const code = BODY_PARSER_CODES[status] ?? 'BAD_REQUEST';
    const detail = e.type === 'charset.unsupported' ? 'Content-Type' : status === 415 || status === 400 ? 'Content-Encoding' : 'body';
    return new ServiceError(code, detail, { message: `The request body could not be read: ${e.message ?? 'malformed'}.` });
  }
  const dependency = unreachableDependency(err);
  if (dependency) {
    logger.warn({ request_id: requestId, dependency, err }, 'dependency unreachable');
    return new ServiceError('SERVICE_UNAVAILABLE', dependency, {
      message: `The ${dependency === 'database' ? 'database' : 'workflow service'} is not reachable right now; retry shortly with the same Idempotency-Key.`,
      retryAfterSeconds: DEPENDENCY_RETRY_AFTER_SECONDS,
    });
  }
  logger.error({ request_id: requestId, err }, 'unhandled error');
  return new ServiceError('INTERNAL_ERROR');
}

/**
 * The last middleware: every error leaves in the envelope; a 500 leaks nothing internal.
 * `challenge` gives a 401 for missing or wrong bearer credentials its `WWW-Authenticate`
 * (RFC 6750, with the RFC 9728 `resource_metadata` pointer: api/oauth/resources.ts).
 */
export function errorHandler(logger: Logger, challenge?: (error?: 'invalid_token') => string) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (res.headersSent) {
      res.end();
      return;
    }
    const serviceError = toServiceError(err, logger, String(res.locals.requestId ?? ''));
    res.locals.errorCode = serviceError.code;
    if (challenge && serviceError.code === 'UNAUTHENTICATED' && serviceError.detail === 'Authorization') {
      res.set('WWW-Authenticate', challenge(req.get('authorization') ? 'invalid_token' : undefined));
    }
    sendError(res, serviceError);
  };
}
