import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import client from 'prom-client';
import { ServiceError } from '../../domain/errors';
import { sendError } from './envelope';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{8,128}$/;

/** Every response carries X-Request-Id; a sane incoming id is kept so traces join up. */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.get('x-request-id');
  const id = incoming && REQUEST_ID_PATTERN.test(incoming) ? incoming : randomUUID();
  res.locals.requestId = id;
  res.set('X-Request-Id', id);
  next();
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


/** One structured log line per request, with the request id, never a secret. */
export function accessLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = (req.route?.path as string | undefined) ?? (res.statusCode === 404 ? 'unmatched' : req.path);
      httpRequestDuration.labels(req.method, route, String(res.statusCode)).observe(seconds);
      logger.info(
        {
          request_id: res.locals.requestId,
          method: req.method,
          route,
          status: res.statusCode,
          duration_ms: Math.round(seconds * 1e4) / 10,
          error_code: res.locals.errorCode,
        },
        'request',
      );
    });
    next();
  };
}

export function notFound(req: Request, res: Response): void {
  sendError(res, new ServiceError('NOT_FOUND', `route:${req.method} ${req.path}`, { message: `No route ${req.method} ${req.path}.` }));
}

/** The last middleware: every error leaves in the envelope; a 500 leaks nothing internal. */
export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (res.headersSent) {
      res.end();
      return;
    }
    let serviceError: ServiceError;
    const e = err as { type?: string; status?: number; limit?: number };
    if (err instanceof ServiceError) {
      serviceError = err;
    } else if (e?.type === 'entity.parse.failed') {
      serviceError = new ServiceError('INVALID_REQUEST', 'body', { message: 'The body is not valid JSON.' });
    } else if (e?.type === 'entity.too.large') {
      serviceError = new ServiceError('PAYLOAD_TOO_LARGE', `body_limit_bytes=${e.limit}`, { message: `The request body is larger than ${e.limit} bytes.` });
    } else if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
      serviceError = new ServiceError('INVALID_REQUEST', 'Content-Type', { message: 'Unsupported body encoding or charset.' });
    } else {
      logger.error({ request_id: res.locals.requestId, err }, 'unhandled error');
      serviceError = new ServiceError('INTERNAL_ERROR');
    }
    res.locals.errorCode = serviceError.code;
    sendError(res, serviceError);
  };
}
