import { randomUUID } from 'node:crypto';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { createApiKey, listApiKeys, revokeApiKey, requestSignUp, signIn, signOut } from '../../domain/accounts/accounts';
import { disableWorkspace, getProfile, updateProfile } from '../../domain/accounts/profile';
import { dailyCreditsSpent } from '../../domain/credits/daily-spend';
import { getUsage } from '../../domain/credits/usage';
import { ServiceError } from '../../core/errors';
import { cancelJob, retryJob } from '../../domain/jobs/control';
import { getJob, listJobs } from '../../domain/jobs/read';
import {
  CreateApiKeyRequest,
  DeleteAccountRequest,
  SignInRequest,
  SignUpRequest,
  UpdateProfileRequest,
} from '../../domain/schemas/account';
import { IdParams } from '../../domain/schemas/common';
import { JOB_STATUSES, PLATFORMS } from '../../domain/schemas/jobs';
import { WebhookEndpointRequestSchema } from '../../domain/schemas/resources';
import { deleteTranscript, getTranscript } from '../../domain/transcripts/read';
import { transcriptMedia, transcriptMediaById } from '../../domain/transcripts/media';
import {
  createWebhookEndpoint,
  disableWebhookEndpoint,
  listDeliveries,
  listWebhookEndpoints,
  resendDelivery,
} from '../../domain/webhooks/endpoints';
import type { AppDeps } from '../http/context';
import { clientAddress } from '../http/rate-limit';
import { assertSameOrigin } from '../http/same-origin';
import { parseInput } from '../http/parse-input';
import { sendStoredMedia } from '../http/media-range';
import { toServiceError } from '../http/middleware';
import { operationName, parseIdempotencyKey } from '../http/route';
import { retryRoute } from '../routes/jobs';
import { jobServiceDeps } from '../wiring';
import { html } from './html';
import { page, type NavKey } from './layout';
import { billingPage, checkout, portal, quoteFor } from './billing';
import { clearSessionCookies, pageSession, setSessionCookies, SignInRequired, writeSession, type PageSession } from './session';
import {
  deleteAccountBody,
  deletedBody,
  keysBody,
  profileBody,
  signInBody,
  signUpBody,
  signUpDoneBody,
  unverifiedBody,
  usageBody,
} from './views-account';
import { jobBody, jobsBody, transcriptBody, webhooksBody } from './views-jobs';
import { PAGE_HEADERS, playgroundHeaders } from './headers';
import { PLANS } from '../../core/plans';
import { playgroundBody } from './views-playground';
import { quoteUploadTranscription } from '../../domain/uploads/uploads';
import { Uuid } from '../../domain/schemas/common';
import { z } from '../../domain/schemas/zod';

const QuoteQuery = z.strictObject({ upload_id: Uuid });

export { DASHBOARD_CSP, PAGE_HEADERS } from './headers';

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

type Handler = (req: Request, res: Response) => Promise<void>;

export function send(res: Response, status: number, body: string): void {
  res.status(status).set(PAGE_HEADERS).type('html').send(body);
}

/** A page answering a refusal with its status, and Retry-After when the refusal names one (a limit, a dependency that is down). */
function sendRefusal(res: Response, err: ServiceError, body: string): void {
  if (err.retryAfterSeconds !== undefined) res.set('Retry-After', String(err.retryAfterSeconds));
  send(res, err.status, body);
}

const noticeOf = (req: Request) => (typeof req.query.done === 'string' ? (NOTICES[req.query.done] ?? null) : null);

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** Where a sign-in may send the browser next: a page of this service only (the OAuth consent page, a dashboard page), never another site. */
function afterSignIn(next: unknown): string | null {
  return typeof next === 'string' && /^\/(oauth\/consent\/[A-Za-z0-9_-]{1,128}|dashboard(\/[A-Za-z0-9_-]{1,64}){0,3})$/.test(next)
    ? next
    : null;
}
const nonEmpty = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

export function dashboardRouter(deps: AppDeps): Router {
  const router = express.Router();
  const forms = express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 50 });

  router.use(
    '/dashboard/static',
    express.static(path.join(__dirname, 'static'), {
      maxAge: '1h',
      index: false,
      fallthrough: true,
      setHeaders: (r) => r.set(PAGE_HEADERS).set('Cache-Control', 'public, max-age=3600'),
    }),
  );

  const shell = (s: PageSession, current: NavKey, email: string) => ({ csrf: s.csrf, email, current });
  const emailOf = async (s: PageSession) =>
    (await deps.db.user.findUnique({ where: { id: s.principal.userId }, select: { email: true } }))?.email ?? '';

  /** Runs a page handler; sends the browser to sign in, or renders the error as a page. */
  const run =
    (h: Handler) =>
    async (req: Request, res: Response, _next: NextFunction): Promise<void> => {
      try {
        await h(req, res);
      } catch (err) {
        if (err instanceof SignInRequired) {
          res.set(PAGE_HEADERS).redirect(303, '/app/sign-in');
          return;
        }
        const e = toServiceError(err, deps.logger, String(res.locals.requestId ?? ''));
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
      }
    };

  /**
   * A button on a page that acts on one resource of the signed-in workspace
   * (revoke, cancel, delete, disable, resend): a checked write session, the
   * id from the path, the domain call, then back to a page saying what was done.
   */
  const idAction = <R>(path: string, act: (s: PageSession, id: string) => Promise<R>, then: (id: string, result: R) => string) =>
    router.post(
      path,
      forms,
      run(async (req, res) => {
        const s = await writeSession(req, deps);
        const { id } = parseInput(IdParams, req.params, 'params');
        const result = await act(s, id);
        res.set(PAGE_HEADERS).redirect(303, then(id, result));
      }),
    );

  // ---------------------------------------------------------------- sign-in, sign-up, sign-out

  router.get(
    '/app/sign-in',
    run(async (req, res) =>
      send(
        res,
        200,
        page({ title: 'Sign in', notice: noticeOf(req), body: signInBody({ next: afterSignIn(req.query.next) ?? undefined }) }),
      ),
    ),
  );
  router.post(
    '/app/sign-in',
    forms,
    run(async (req, res) => {
      assertSameOrigin(req, deps.baseUrl);
      const email = str(req.body?.email) ?? '';
      const next = afterSignIn(req.body?.next);
      try {
        // The same bounds as POST /app/session (SignInRequest): a long or unstorable e-mail is refused before it is counted or looked up.
        const credentials = parseInput(SignInRequest, { email, password: str(req.body?.password) ?? '' }, 'body');
        const { sessionToken, csrfToken } = await deps.signInThrottle.attempt(clientAddress(req), credentials.email, () =>
          signIn(deps.db, credentials.email, credentials.password),
        );
        setSessionCookies(res, deps, sessionToken, csrfToken);
        res.set(PAGE_HEADERS).redirect(303, next ?? '/dashboard/usage');
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        const shown = email.length <= 254 && !/[\u0000\ud800-\udfff]/.test(email) ? email : '';
        sendRefusal(res, err, page({ title: 'Sign in', error: err.message, body: signInBody({ email: shown, next: next ?? undefined }) }));
      }
    }),
  );
  router.get(
    '/dashboard/sign-up',
    run(async (_req, res) => send(res, 200, page({ title: 'Create an account', body: signUpBody() }))),
  );
  router.post(
    '/dashboard/sign-up',
    forms,
    run(async (req, res) => {
      assertSameOrigin(req, deps.baseUrl);
      const values = { email: str(req.body?.email), display_name: str(req.body?.display_name) };
      try {
        const body = parseInput(
          SignUpRequest,
          { email: values.email, password: str(req.body?.password), display_name: values.display_name },
          'body',
        );
        await deps.signUpLimit.consume(clientAddress(req));
        await requestSignUp(deps.db, body, { baseUrl: deps.baseUrl });
        send(res, 201, page({ title: 'Check your e-mail', body: signUpDoneBody(body.email, deps.config.APP_ENV !== 'production') }));
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        sendRefusal(res, err, page({ title: 'Create an account', error: err.message, body: signUpBody(values) }));
      }
    }),
  );
  router.post(
    '/dashboard/sign-out',
    forms,
    run(async (req, res) => {
      const s = await writeSession(req, deps, { allowUnverified: true });
      await signOut(deps.db, s.principal.sessionId);
      clearSessionCookies(res);
      res.set(PAGE_HEADERS).redirect(303, '/app/sign-in?done=signed_out');
    }),
  );

  // ---------------------------------------------------------------- usage

  router.get('/dashboard', (_req, res) => res.set(PAGE_HEADERS).redirect(303, '/dashboard/usage'));
  router.get(
    '/dashboard/usage',
    run(async (req, res) => {
      const s = await pageSession(req, deps);
      const [usage, spend, email] = await Promise.all([
        getUsage(deps, s.principal.workspaceId),
        dailyCreditsSpent(deps.db, s.principal.workspaceId, 30),
        emailOf(s),
      ]);
      send(res, 200, page({ title: 'Usage', session: shell(s, 'usage', email), body: usageBody(usage, spend) }));
    }),
  );

  // ---------------------------------------------------------------- new transcript (the playground)

  router.get(
    '/dashboard/new',
    run(async (req, res) => {
      const s = await pageSession(req, deps);
      const [usage, email] = await Promise.all([getUsage(deps, s.principal.workspaceId), emailOf(s)]);
      const body = playgroundBody({
        creditsRemaining: usage.credits_remaining,
        asrEnabled: deps.config.ASR_ENABLED,
        aiAllowed: deps.config.ASR_ENABLED && PLANS[s.principal.plan].paid,
      });
      res
        .status(200)
        .set(playgroundHeaders(deps.objectStore.uploadOrigin, new URL(deps.baseUrl).origin))
        .type('html')
        .send(page({ title: 'New transcript', session: shell(s, 'new', email), body, scripts: ['playground.js'] }));
    }),
  );
  // The price of transcribing a ready upload, for the playground's quote (JSON: the page's script reads it).
  router.get('/dashboard/new/quote', async (req, res) => {
    let s: PageSession;
    try {
      s = await pageSession(req, deps);
    } catch (err) {
      if (err instanceof SignInRequired) throw new ServiceError('UNAUTHENTICATED', 'session', { message: 'Sign in again.' });
      throw err;
    }
    const { upload_id } = parseInput(QuoteQuery, req.query, 'query');
    res.set('Cache-Control', 'no-store').json(await quoteUploadTranscription(deps.db, s.principal.workspaceId, upload_id));
  });

  // ---------------------------------------------------------------- API keys

  const renderKeys = async (
    res: Response,
    s: PageSession,
    status: number,
    extra: { created?: Parameters<typeof keysBody>[2]; error?: string; notice?: string | null } = {},
  ) => {
    const [keys, email] = await Promise.all([listApiKeys(deps.db, s.principal.workspaceId), emailOf(s)]);
    send(
      res,
      status,
      page({
        title: 'API keys',
        session: shell(s, 'keys', email),
        error: extra.error,
        notice: extra.notice,
        body: keysBody(keys, s.csrf, extra.created),
      }),
    );
  };
  router.get(
    '/dashboard/keys',
    run(async (req, res) => renderKeys(res, await pageSession(req, deps), 200, { notice: noticeOf(req) })),
  );
  router.post(
    '/dashboard/keys',
    forms,
    run(async (req, res) => {
      const s = await writeSession(req, deps);
      const scopes = req.body?.scopes === undefined ? [] : ([] as unknown[]).concat(req.body.scopes);
      try {
        const body = parseInput(CreateApiKeyRequest, { name: str(req.body?.name), scopes }, 'body');
        // The secret is in this response only: the page is not cached and nothing keeps it for a second rendering.
        await renderKeys(res, s, 201, { created: await createApiKey(deps.db, s.principal.workspaceId, body) });
      } catch (err) {
        if (!(err instanceof ServiceError) || err.status >= 500) throw err;
        await renderKeys(res, s, err.status, { error: err.message });
      }
    }),
  );
  idAction(
    '/dashboard/keys/:id/revoke',
    (s, id) => revokeApiKey(deps.db, s.principal.workspaceId, id),
    () => '/dashboard/keys?done=revoked',
  );

  // ---------------------------------------------------------------- jobs

  router.get(
    '/dashboard/jobs',
    run(async (req, res) => {
      const s = await pageSession(req, deps);
      const status = (JOB_STATUSES as readonly string[]).includes(str(req.query.status) ?? '')
        ? (req.query.status as (typeof JOB_STATUSES)[number])
        : undefined;
      const platform = PLATFORMS.find((p) => p === str(req.query.platform));
      const cursor = nonEmpty(req.query.cursor);
      const limit = /^\d{1,3}$/.test(str(req.query.limit) ?? '') ? Math.min(100, Math.max(1, Number(req.query.limit))) : 20;
      const [list, email] = await Promise.all([
        listJobs(deps.db, deps.secretsKey, s.principal.workspaceId, { limit, status, platform, cursor }),
        emailOf(s),
      ]);
      send(
        res,
        200,
        page({
          title: 'Jobs',
          session: shell(s, 'jobs', email),
          notice: noticeOf(req),
          body: jobsBody(list.jobs, { status, platform, ...(limit !== 20 ? { limit: String(limit) } : {}) }, list.next_cursor, !cursor),
        }),
      );
    }),
  );
  router.get(
    '/dashboard/jobs/:id',
    run(async (req, res) => {
      const s = await pageSession(req, deps);
      const { id } = parseInput(IdParams, req.params, 'params');
      const [job, email] = await Promise.all([getJob(deps.db, s.principal.workspaceId, id), emailOf(s)]);
      send(
        res,
        200,
        page({
          title: 'Job',
          session: shell(s, 'jobs', email),
          notice: noticeOf(req),
          body: jobBody(job, s.csrf, `dashboard-retry-${randomUUID()}`),
        }),
      );
    }),
  );
  idAction(
    '/dashboard/jobs/:id/cancel',
    (s, id) => cancelJob(jobServiceDeps(deps), s.principal, id),
    (id, { decision }) => `/dashboard/jobs/${id}?done=${decision === 'decided' ? 'cancelled' : 'cancel_pending'}`,
  );
  router.post(
    '/dashboard/jobs/:id/retry',
    forms,
    run(async (req, res) => {
      const s = await writeSession(req, deps);
      const { id } = parseInput(IdParams, req.params, 'params');
      // The form's key makes a double submit one retry, as an Idempotency-Key does on POST /v1/jobs/{id}/retry.
      const key = parseIdempotencyKey(str(req.body?.idempotency_key), 'idempotency_key');
      await deps.rateLimits.consume('submit', s.principal.plan, s.principal.workspaceId);
      const result = await retryJob(jobServiceDeps(deps), s.principal, id, {}, { key, operation: operationName(retryRoute, { id }) });
      res.set(PAGE_HEADERS).redirect(303, `/dashboard/jobs/${result.job.id}?done=retried`);
    }),
  );

  // ---------------------------------------------------------------- transcripts

  router.get(
    '/dashboard/transcripts/:id',
    run(async (req, res) => {
      const s = await pageSession(req, deps);
      const { id } = parseInput(IdParams, req.params, 'params');
      const [t, email] = await Promise.all([getTranscript(deps.db, s.principal.workspaceId, id), emailOf(s)]);
      send(
        res,
        200,
        page({
          title: t.source.title ? `Transcript: ${t.source.title}` : 'Transcript',
          session: shell(s, 'jobs', email),
          body: transcriptBody(t, s.csrf, await transcriptMedia(deps.db, deps.objectStore, s.principal.workspaceId, t.source)),
        }),
      );
    }),
  );
  // The upload a transcript was made from, for the page's player (Range requests: api/http/media-range.ts).
  router.get(
    '/dashboard/transcripts/:id/media',
    run(async (req, res) => {
      const s = await pageSession(req, deps);
      const { id } = parseInput(IdParams, req.params, 'params');
      const media = await transcriptMediaById(deps.db, deps.objectStore, s.principal.workspaceId, id);
      if (!media) throw new ServiceError('NOT_FOUND', 'id', { message: 'No stored media for this transcript.' });
      await sendStoredMedia(req, res, deps.objectStore, media);
    }),
  );
  idAction(
    '/dashboard/transcripts/:id/delete',
    (s, id) => deleteTranscript(deps.db, deps.temporal, deps.config.TEMPORAL_TASK_QUEUE, s.principal.workspaceId, id),
    () => '/dashboard/jobs?done=deleted',
  );

  // ---------------------------------------------------------------- webhooks

  const renderWebhooks = async (
    res: Response,
    s: PageSession,
    status: number,
    extra: {
      created?: Parameters<typeof webhooksBody>[3];
      error?: string;
      notice?: string | null;
      values?: { url?: string; description?: string };
    } = {},
  ) => {
    const [endpoints, deliveries, email] = await Promise.all([
      listWebhookEndpoints(deps.db, s.principal.workspaceId),
      listDeliveries(deps.db, s.principal.workspaceId, 50),
      emailOf(s),
    ]);
    send(
      res,
      status,
      page({
        title: 'Webhooks',
        session: shell(s, 'webhooks', email),
        error: extra.error,
        notice: extra.notice,
        body: webhooksBody(endpoints, deliveries, s.csrf, extra.created, extra.values),
      }),
    );
  };
  router.get(
    '/dashboard/webhooks',
    run(async (req, res) => renderWebhooks(res, await pageSession(req, deps), 200, { notice: noticeOf(req) })),
  );
  router.post(
    '/dashboard/webhooks',
    forms,
    run(async (req, res) => {
      const s = await writeSession(req, deps);
      const values = { url: str(req.body?.url), description: nonEmpty(req.body?.description) };
      try {
        const body = parseInput(WebhookEndpointRequestSchema, values, 'body');
        const created = await createWebhookEndpoint(deps.db, deps.secretsKey, deps.addressPolicy, s.principal.workspaceId, body);
        await renderWebhooks(res, s, 201, { created });
      } catch (err) {
        if (!(err instanceof ServiceError) || err.status >= 500) throw err;
        await renderWebhooks(res, s, err.status, { error: err.message, values });
      }
    }),
  );
  idAction(
    '/dashboard/webhooks/:id/disable',
    (s, id) => disableWebhookEndpoint(deps.db, s.principal.workspaceId, id),
    () => '/dashboard/webhooks?done=disabled',
  );
  idAction(
    '/dashboard/webhooks/deliveries/:id/resend',
    (s, id) => resendDelivery(deps.db, deps.temporal, deps.config.TEMPORAL_TASK_QUEUE, s.principal.workspaceId, id),
    () => '/dashboard/webhooks?done=resent',
  );

  // ---------------------------------------------------------------- billing (api/dashboard/billing.ts)

  // The payment provider sends the browser back here (domain/billing's return URL).
  router.get('/app/billing', (req, res) => {
    const outcome =
      req.query.checkout === 'success' ? '?done=checkout_success' : req.query.checkout === 'cancelled' ? '?done=checkout_cancelled' : '';
    res.set(PAGE_HEADERS).redirect(303, `/dashboard/billing${outcome}`);
  });
  router.get(
    '/dashboard/billing',
    run(async (req, res) => {
      const s = await pageSession(req, deps);
      const [usage, email] = await Promise.all([getUsage(deps, s.principal.workspaceId), emailOf(s)]);
      const units = str(req.query.units);
      const quote =
        units === undefined ? { units: 5000, result: null, error: null } : { units: Number(units) || 5000, ...quoteFor(s, units) };
      send(res, 200, billingPage(deps, s, email, usage, quote, noticeOf(req)));
    }),
  );
  router.post(
    '/dashboard/billing/checkout',
    forms,
    run(async (req, res) => {
      const s = await writeSession(req, deps);
      res.set(PAGE_HEADERS).redirect(303, await checkout(deps, s, req.body as Record<string, unknown>));
    }),
  );
  router.post(
    '/dashboard/billing/portal',
    forms,
    run(async (req, res) => {
      const s = await writeSession(req, deps);
      res.set(PAGE_HEADERS).redirect(303, await portal(deps, s));
    }),
  );

  // ---------------------------------------------------------------- profile and account deletion

  router.get(
    '/dashboard/profile',
    run(async (req, res) => {
      const s = await pageSession(req, deps);
      const p = await getProfile(deps.db, s.principal.workspaceId, s.principal.userId);
      send(
        res,
        200,
        page({ title: 'Profile', session: shell(s, 'profile', p.email), notice: noticeOf(req), body: profileBody(p, s.csrf) }),
      );
    }),
  );
  router.post(
    '/dashboard/profile',
    forms,
    run(async (req, res) => {
      const s = await writeSession(req, deps);
      const retention = nonEmpty(req.body?.retention_days);
      try {
        const body = parseInput(
          UpdateProfileRequest,
          {
            ...(req.body?.display_name !== undefined ? { display_name: str(req.body.display_name) } : {}),
            ...(retention !== undefined ? { retention_days: /^\d{1,6}$/.test(retention) ? Number(retention) : retention } : {}),
          },
          'body',
        );
        await updateProfile(deps.db, s.principal.workspaceId, s.principal.userId, body);
        res.set(PAGE_HEADERS).redirect(303, '/dashboard/profile?done=saved');
      } catch (err) {
        if (!(err instanceof ServiceError) || err.status >= 500) throw err;
        const p = await getProfile(deps.db, s.principal.workspaceId, s.principal.userId);
        send(
          res,
          err.status,
          page({ title: 'Profile', session: shell(s, 'profile', p.email), error: err.message, body: profileBody(p, s.csrf) }),
        );
      }
    }),
  );
  router.get(
    '/dashboard/account/delete',
    run(async (req, res) => {
      const s = await pageSession(req, deps, { allowUnverified: true });
      send(res, 200, page({ title: 'Delete account', session: shell(s, 'profile', await emailOf(s)), body: deleteAccountBody(s.csrf) }));
    }),
  );
  router.post(
    '/dashboard/account/delete',
    forms,
    run(async (req, res) => {
      const s = await writeSession(req, deps, { allowUnverified: true });
      try {
        parseInput(DeleteAccountRequest, { confirm: str(req.body?.confirm) ?? '' }, 'body');
      } catch (err) {
        if (!(err instanceof ServiceError)) throw err;
        send(
          res,
          err.status,
          page({
            title: 'Delete account',
            session: shell(s, 'profile', await emailOf(s)),
            error: 'Type DELETE (in capital letters) to confirm.',
            body: deleteAccountBody(s.csrf),
          }),
        );
        return;
      }
      await disableWorkspace(deps.db, s.principal.workspaceId);
      clearSessionCookies(res);
      send(res, 200, page({ title: 'Account deleted', body: deletedBody() }));
    }),
  );

  return router;
}
