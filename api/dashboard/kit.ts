import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { ServiceError } from '../../core/errors';
import type { AppDeps } from '../http/context';
import { toServiceError } from '../http/middleware';
import { runRoute, type RouteCall } from '../http/pipeline';
import type { AnyRoute, Reply } from '../http/route';
import { PAGE_HEADERS } from './headers';
import { page, type NavKey } from './layout';
import { pageSession, SignInRequired, writeSession, type PageSession } from './session';
import { unverifiedBody } from './views-account';
import { html } from './html';

// What every dashboard page module (api/dashboard/pages/) is built from: the page and form handlers with the
// error page, the navigation shell, and `callRoute`, which runs a form's REST twin through the one request
// pipeline (api/http/pipeline.ts) with the page's session as the caller, so a form and its `POST /v1/...`
// cannot apply two policies (scope, rate-limit class, idempotency, parsing).

/** Notices after a redirect, by key (never text from the request). */
const NOTICES: Record<string, string> = {
  revoked: 'The key is revoked.',
  cancelled: 'The job is cancelled; its credits are released.',
  cancel_pending:
    'The cancel is recorded. No worker is running the job right now: it is cancelled as soon as one does, unless AI transcription has started by then.',
  retried: 'A new job was started for this source.',
  deleted: 'The transcript is deleted.',
  disabled: 'The endpoint is disabled.',
  resent: 'The event is being sent again (same event id).',
  saved: 'Saved.',
  signed_out: 'You are signed out.',
  checkout_success:
    'Thank you: the payment went through. The plan or credits show here once the payment provider confirms it (usually within seconds).',
  checkout_cancelled: 'The checkout was cancelled; nothing was charged.',
};

export type PageHandler = (req: Request, res: Response) => Promise<void>;

export function send(res: Response, status: number, body: string): void {
  res.status(status).set(PAGE_HEADERS).type('html').send(body);
}

/** A page answering a refusal with its status, and Retry-After when the refusal names one (a limit, a dependency that is down). */
export function sendRefusal(res: Response, err: ServiceError, body: string): void {
  if (err.retryAfterSeconds !== undefined) res.set('Retry-After', String(err.retryAfterSeconds));
  send(res, err.status, body);
}

export const redirect = (res: Response, to: string): void => res.set(PAGE_HEADERS).redirect(303, to);

export const noticeOf = (req: Request): string | null => (typeof req.query.done === 'string' ? (NOTICES[req.query.done] ?? null) : null);

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const nonEmpty = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** A form's refusal to show on its own page (a 4xx of the request); anything else is the error page's. */
export const formRefusal = (err: unknown): ServiceError | null => (err instanceof ServiceError && err.status < 500 ? err : null);

export interface Pages {
  deps: AppDeps;
  router: Router;
  get(path: string, handler: PageHandler): void;
  /** A form's target: the urlencoded body parsed, errors rendered as a page. */
  post(path: string, handler: PageHandler): void;
  shell(s: PageSession, current: NavKey, email: string): { csrf: string; email: string; current: NavKey };
  emailOf(s: PageSession): Promise<string>;
  /** A form's REST twin, run with the page's session as its caller. */
  callRoute(
    route: AnyRoute,
    s: PageSession | null,
    req: Request,
    res: Response,
    input?: Pick<RouteCall, 'params' | 'body' | 'idempotencyKey'>,
  ): Promise<Reply>;
  /**
   * A button that acts on one resource of the signed-in workspace (revoke, cancel, delete, disable, resend):
   * a checked write session, the REST twin with the id from the path, then back to a page saying what was done.
   */
  idAction(path: string, route: AnyRoute, then: (id: string, reply: Reply) => string): void;
}

export function dashboardPages(deps: AppDeps, router: Router): Pages {
  const forms: RequestHandler = express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 50 });
  const emailOf = async (s: PageSession) =>
    (await deps.db.user.findUnique({ where: { id: s.principal.userId }, select: { email: true } }))?.email ?? '';

  /** Runs a page handler; sends the browser to sign in, or renders the error as a page. */
  const run =
    (h: PageHandler) =>
    async (req: Request, res: Response, _next: NextFunction): Promise<void> => {
      try {
        await h(req, res);
      } catch (err) {
        if (err instanceof SignInRequired) return redirect(res, '/app/sign-in');
        await renderError(req, res, toServiceError(err, deps.logger, String(res.locals.requestId ?? '')));
      }
    };

  const renderError = async (req: Request, res: Response, e: ServiceError): Promise<void> => {
    res.locals.errorCode = e.code;
    if (e.code === 'EMAIL_UNVERIFIED') return send(res, 403, page({ title: 'Verify your e-mail', body: unverifiedBody() }));
    // A dependency that is down (503: the payment provider, the database) is not a fault of this request: the page says to come back.
    const unavailable = e.code === 'SERVICE_UNAVAILABLE';
    const title =
      e.status === 404
        ? 'Not found'
        : e.status === 403
          ? 'Not allowed'
          : unavailable
            ? 'Not available right now'
            : e.status >= 500
              ? 'Something went wrong'
              : 'That did not work';
    // Signed in: the page keeps its navigation (a page with no valid session shows none).
    const s = e.status < 500 || unavailable ? await pageSession(req, deps, { allowUnverified: true }).catch(() => null) : null;
    sendRefusal(
      res,
      e,
      page({
        title,
        session: s ? { csrf: s.csrf, email: await emailOf(s), current: 'none' } : undefined,
        error:
          e.status === 404
            ? 'There is nothing here in your workspace.'
            : e.code === 'INTERNAL_ERROR'
              ? 'Something went wrong on our side. Try again in a moment; if it keeps happening, tell us the request id below.'
              : e.message,
        body: html`<p><a href="/dashboard/usage">Back to the dashboard</a></p>
          <p class="hint">Request id: <code>${String(res.locals.requestId ?? '')}</code></p>`,
      }),
    );
  };

  const pages: Pages = {
    deps,
    router,
    get: (path, handler) => void router.get(path, run(handler)),
    post: (path, handler) => void router.post(path, forms, run(handler)),
    shell: (s, current, email) => ({ csrf: s.csrf, email, current }),
    emailOf,
    callRoute: (route, s, req, res, input = {}) =>
      runRoute(route, deps, { ...input, principal: s?.principal ?? null, req, res, requestId: String(res.locals.requestId ?? '') }),
    idAction: (path, route, then) =>
      pages.post(path, async (req, res) => {
        const s = await writeSession(req, deps);
        const reply = await pages.callRoute(route, s, req, res, { params: req.params });
        redirect(res, then(String(req.params.id), reply));
      }),
  };
  return pages;
}
