import type { NextFunction, Request, Response } from 'express';
import { ServiceError } from '../../core/errors';
import { assertStorableText } from './storable-text';

// The request target (path and query string) is checked once, before any
// router, page or the OAuth server reads it: every part must be valid
// percent-encoded UTF-8, the path must not hold NUL, and no query value may
// hold text PostgreSQL cannot store. Each of these used to reach a decoder or
// a statement deeper down and come back as a 500 that no retry could fix.

function decodes(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null; // a malformed escape (`%zz`, `%E0%A4`) or one that is not UTF-8 (`%FF`)
  }
}

/**
 * What is wrong with the request target, or null: the path must decode as
 * UTF-8 without NUL; each query key and value too (`+` is a space), and no
 * query value may hold text PostgreSQL cannot store.
 */
export function requestTargetProblem(req: Request): ServiceError | null {
  const raw = req.originalUrl ?? req.url;
  const q = raw.indexOf('?');
  const path = decodes(q === -1 ? raw : raw.slice(0, q));
  if (path === null || path.includes('\u0000')) {
    return new ServiceError('BAD_REQUEST', 'path', {
      message: 'The path is not valid percent-encoded UTF-8, or it holds a NUL character.',
    });
  }
  if (q === -1) return null;
  for (const pair of raw.slice(q + 1).split('&')) {
    if (pair !== '' && decodes(pair.replace(/\+/g, ' ')) === null) {
      return new ServiceError('BAD_REQUEST', 'query', { message: 'The query string is not valid percent-encoded UTF-8.' });
    }
  }
  try {
    // NUL in a value: 422 naming the parameter, as the routes' own validation answers it.
    assertStorableText(req.query, 'query');
  } catch (err) {
    return err as ServiceError;
  }
  return null;
}

/** The check as middleware, for everything but the OAuth server (api/oauth/provider.ts answers in OAuth's own error format). */
export function checkRequestTarget(req: Request, _res: Response, next: NextFunction): void {
  if (req.path.startsWith('/oauth/')) return next();
  next(requestTargetProblem(req) ?? undefined);
}
