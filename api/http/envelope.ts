import http from 'node:http';
import type { Response } from 'express';
import { ZodError } from 'zod';
import { z } from '../../domain/schemas/zod';
import { docUrl, ServiceError } from '../../core/errors';
import { ErrorObjectSchema } from '../../domain/schemas/common';

/** The one mapping from a ServiceError to HTTP: status, headers and the spec's envelope. */
export function sendError(res: Response, err: ServiceError): void {
  const requestId = String(res.locals.requestId ?? '');
  if (err.headers) res.set(err.headers);
  if (err.retryAfterSeconds !== undefined) res.set('Retry-After', String(err.retryAfterSeconds));
  res.status(err.status).json({
    error: { ...err.toObject(), doc_url: docUrl(err.code) },
    request_id: requestId,
  });
}

/**
 * An error answered on a raw socket, outside Express (a parser error, a refused WebSocket upgrade): the same
 * status, envelope, X-Request-Id and Retry-After as sendError gives, then the connection closes.
 */
export function rawErrorResponse(error: ServiceError, requestId: string): Buffer {
  const body = JSON.stringify({ error: { ...error.toObject(), doc_url: docUrl(error.code) }, request_id: requestId });
  const reason = http.STATUS_CODES[error.status] ?? 'Error';
  const headers = [
    `HTTP/1.1 ${error.status} ${reason}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    ...(error.retryAfterSeconds !== undefined ? [`Retry-After: ${error.retryAfterSeconds}`] : []),
    'Connection: close',
  ];
  return Buffer.from(`${headers.join('\r\n')}\r\n\r\n${body}`);
}

/** A zod failure becomes INVALID_REQUEST naming the first offending field (dotted path, `[i]` for indexes). */
export function zodToServiceError(err: ZodError, where: string): ServiceError {
  const issue = err.issues[0];
  if (!issue) return new ServiceError('INVALID_REQUEST', where);
  let path = formatPath(issue.path as (string | number)[]);
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    path = path ? `${path}.${key}` : key;
    return new ServiceError('INVALID_REQUEST', `${prefix(where, path)}`, { message: `Unknown field ${prefix(where, path)}.` });
  }
  const field = prefix(where, path);
  return new ServiceError('INVALID_REQUEST', field, { message: `${field}: ${issue.message}` });
}

function prefix(where: string, path: string): string {
  if (where === 'body') return path || 'body';
  return path ? `${where === 'query' || where === 'params' ? '' : `${where}.`}${path}` : where;
}

function formatPath(path: (string | number)[]): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

/**
 * The spec's error envelope, one component that every error response refers to: inlined, its copies were four
 * fifths of the document and of the generated clients. Its `error` is the ErrorObject a failed job carries, plus
 * `doc_url`.
 */
export const ErrorEnvelopeSchema = z
  .object({
    error: ErrorObjectSchema.extend({ doc_url: z.string() }).openapi('EnvelopeError', {
      description: "An ErrorObject and the link to its code's documentation.",
    }),
    request_id: z.string(),
  })
  .openapi('ErrorEnvelope');
