import type { Request, Response } from 'express';
import { principalFromSession, SESSION_TTL_MS } from '../../domain/accounts/accounts';
import type { Principal } from '../../domain/accounts/principal';
import { safeEqual, sha256Hex } from '../../domain/accounts/secrets';
import { ServiceError } from '../../core/errors';
import type { AppDeps } from '../http/context';
import { authorisePrincipal, SESSION_COOKIE } from '../http/auth';
import { assertSameOrigin } from '../http/same-origin';

/**
 * The session's CSRF token, kept for the pages in an HttpOnly cookie of its
 * own: the server puts it into every form it renders (and a meta tag the
 * scripts send as X-CSRF-Token). Only its hash is stored with the session, and
 * every page write is checked against that hash exactly as the JSON API checks
 * X-CSRF-Token; a cross-site form carries the cookie but cannot know the value.
 */
export const CSRF_COOKIE = 'ts_csrf';

/** The CSRF cookie beside the session cookie POST /app/session sets (api/routes/account.ts), with the same lifetime and Secure flag. */
export function setCsrfCookie(res: Response, deps: Pick<AppDeps, 'config'>, csrfToken: string): void {
  res.cookie(CSRF_COOKIE, csrfToken, {
    httpOnly: true,
    secure: deps.config.APP_ENV === 'production',
    path: '/',
    maxAge: SESSION_TTL_MS,
    sameSite: 'strict',
  });
}

/** The pages' CSRF cookie, cleared beside the session cookie that DELETE /app/session and DELETE /app/account clear. */
export function clearCsrfCookie(res: Response): void {
  res.clearCookie(CSRF_COOKIE, { path: '/' });
}

export interface PageSession {
  principal: Principal & { userId: string; sessionId: string };
  csrf: string;
}

/** Thrown to send the browser to the sign-in page. */
export class SignInRequired extends Error {}

const cookies = (req: Request) => (req as Request & { cookies?: Record<string, string> }).cookies ?? {};

/**
 * The signed-in owner of a page request, or SignInRequired. A session made by
 * POST /app/session (JSON) has no CSRF cookie: the pages ask to sign in here.
 * `allowUnverified` as on the JSON routes (sign-out, account deletion).
 */
export async function pageSession(req: Request, deps: AppDeps, opts: { allowUnverified?: boolean } = {}): Promise<PageSession> {
  const token = cookies(req)[SESSION_COOKIE];
  const csrf = cookies(req)[CSRF_COOKIE];
  if (!token || !csrf) throw new SignInRequired();
  const principal = await principalFromSession(deps.db, token);
  if (!principal || !safeEqual(sha256Hex(csrf), principal.csrfTokenHash)) throw new SignInRequired();
  authorisePrincipal({ kind: 'required', scope: null, sessionOnly: true, allowUnverified: opts.allowUnverified }, principal);
  return { principal: principal as PageSession['principal'], csrf };
}

/** Every page write: the form's (or X-CSRF-Token's) token must be the session's, as on the JSON API. */
export async function writeSession(req: Request, deps: AppDeps, opts: { allowUnverified?: boolean } = {}): Promise<PageSession> {
  assertSameOrigin(req, deps.baseUrl);
  const token = cookies(req)[SESSION_COOKIE];
  const principal = token ? await principalFromSession(deps.db, token) : null;
  if (!principal) throw new SignInRequired();
  const body = req.body as Record<string, unknown> | undefined;
  const sent = typeof body?._csrf === 'string' ? body._csrf : req.get('x-csrf-token');
  if (!sent || !safeEqual(sha256Hex(sent), principal.csrfTokenHash)) {
    throw new ServiceError('FORBIDDEN', 'csrf', {
      message: 'The form is missing its CSRF token or it is wrong; reload the page and try again.',
    });
  }
  authorisePrincipal({ kind: 'required', scope: null, sessionOnly: true, allowUnverified: opts.allowUnverified }, principal);
  return { principal: principal as PageSession['principal'], csrf: sent };
}
