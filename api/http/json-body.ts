import express, { type Request, type RequestHandler } from 'express';
import { ServiceError } from '../../core/errors';
import { jsonNestingExceeds, tooDeep } from './storable-text';

// The one JSON body parser of the service (REST routes, the agent tool server).
// Only JSON media types are read: a JSON route refuses any other body with 415
// (api/http/route.ts), so a cross-site `<form enctype="text/plain">` never
// reaches a JSON handler. Nesting is checked on the raw bytes before the text
// is parsed, so no over-deep body reaches anything that recurses.

export const JSON_MEDIA_TYPES = ['application/json', 'application/*+json'];

export function jsonBodyParser(limitBytes: number): RequestHandler {
  return express.json({
    limit: limitBytes,
    type: JSON_MEDIA_TYPES,
    strict: false,
    verify: (_req, _res, raw) => {
      if (jsonNestingExceeds(raw)) throw tooDeep();
    },
  });
}

/** True when the request carries a body (a Content-Length above 0, or a chunked body). */
export function hasBody(req: Request): boolean {
  const length = req.get('content-length');
  return req.get('transfer-encoding') !== undefined || (length !== undefined && length.trim() !== '0');
}

/** 415 for a body that is not JSON on a route that reads JSON (a body-less request passes). */
export function assertJsonBody(req: Request): void {
  if (!hasBody(req) || req.is(JSON_MEDIA_TYPES)) return;
  throw new ServiceError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type', {
    message: `The body must be JSON sent as Content-Type: application/json (got ${req.get('content-type') ? JSON.stringify(req.get('content-type')!.slice(0, 100)) : 'no Content-Type'}).`,
  });
}
