import express, { type Request, type RequestHandler } from 'express';
import { ServiceError } from '../../core/errors';
import { isUtf8 } from 'node:buffer';
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
      // The decoder would put U+FFFD where the bytes are not UTF-8, and the text would be stored changed.
      if (!isUtf8(raw)) throw notUtf8(raw);
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

/**
 * 422 INVALID_REQUEST naming the first field whose text is not UTF-8 (the body read leniently, its first string
 * holding a replacement character), or `body` when that cannot be told (the JSON does not parse).
 */
function notUtf8(raw: Buffer): ServiceError {
  let field = 'body';
  try {
    field = firstPathWith(JSON.parse(raw.toString('utf8')), '\uFFFD') ?? 'body';
  } catch {
    // not JSON either: the body as a whole
  }
  return new ServiceError('INVALID_REQUEST', field, { message: `${field}: text must be UTF-8; the body holds bytes that are not.` });
}

/** The dotted path of the first string (or object key) that contains `needle`, depth-first in document order. */
function firstPathWith(value: unknown, needle: string, path = ''): string | null {
  if (typeof value === 'string') return value.includes(needle) ? path || 'body' : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = firstPathWith(value[i], needle, `${path}[${i}]`);
      if (hit) return hit;
    }
  } else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (key.includes(needle)) return `${path || 'body'} (key)`;
      const hit = firstPathWith(child, needle, at);
      if (hit) return hit;
    }
  }
  return null;
}
