import { ServiceError } from '../../../core/errors';
import { signInRoute, signOutRoute, signUpRoute } from '../../routes/account';
import { formRefusal, noticeOf, redirect, send, sendRefusal, str, type Pages } from '../kit';
import { page } from '../layout';
import { clearCsrfCookie, setCsrfCookie, writeSession } from '../session';
import { signInBody, signUpBody, signUpDoneBody } from '../views-account';

/** Where a sign-in may send the browser next: a page of this service only (the OAuth consent page, a dashboard page), never another site. */
function afterSignIn(next: unknown): string | null {
  return typeof next === 'string' && /^\/(oauth\/consent\/[A-Za-z0-9_-]{1,128}|dashboard(\/[A-Za-z0-9_-]{1,64}){0,3})$/.test(next)
    ? next
    : null;
}

/** Sign-in, sign-up and sign-out: POST /app/session, POST /app/sign-up and DELETE /app/session behind forms. */
export function mountSignInPages(pages: Pages): void {
  const { deps } = pages;
  pages.get('/app/sign-in', async (req, res) =>
    send(res, 200, page({ title: 'Sign in', notice: noticeOf(req), body: signInBody({ next: afterSignIn(req.query.next) ?? undefined }) })),
  );
  pages.post('/app/sign-in', async (req, res) => {
    const email = str(req.body?.email) ?? '';
    const next = afterSignIn(req.body?.next);
    try {
      // The session cookie is set by the route; the pages keep its CSRF token in a cookie of their own.
      const reply = await pages.callRoute(signInRoute, null, req, res, { body: { email, password: str(req.body?.password) ?? '' } });
      setCsrfCookie(res, deps, (reply.body as { csrf_token: string }).csrf_token);
      redirect(res, next ?? '/dashboard/usage');
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      const shown = email.length <= 254 && !/[\u0000\ud800-\udfff]/.test(email) ? email : '';
      sendRefusal(res, err, page({ title: 'Sign in', error: err.message, body: signInBody({ email: shown, next: next ?? undefined }) }));
    }
  });
  pages.get('/dashboard/sign-up', async (_req, res) => send(res, 200, page({ title: 'Create an account', body: signUpBody() })));
  pages.post('/dashboard/sign-up', async (req, res) => {
    const values = { email: str(req.body?.email), display_name: str(req.body?.display_name) };
    try {
      await pages.callRoute(signUpRoute, null, req, res, { body: { ...values, password: str(req.body?.password) } });
      send(res, 201, page({ title: 'Check your e-mail', body: signUpDoneBody(values.email ?? '', deps.config.APP_ENV !== 'production') }));
    } catch (err) {
      const refusal = formRefusal(err);
      if (!refusal) throw err;
      sendRefusal(res, refusal, page({ title: 'Create an account', error: refusal.message, body: signUpBody(values) }));
    }
  });
  pages.post('/dashboard/sign-out', async (req, res) => {
    const s = await writeSession(req, deps, { allowUnverified: true });
    await pages.callRoute(signOutRoute, s, req, res);
    clearCsrfCookie(res);
    redirect(res, '/app/sign-in?done=signed_out');
  });
}
