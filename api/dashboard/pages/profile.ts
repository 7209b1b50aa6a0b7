import { getProfile } from '../../../domain/accounts/profile';
import { deleteAccountRoute, updateProfileRoute } from '../../routes/account';
import { formRefusal, nonEmpty, noticeOf, redirect, send, str, type Pages } from '../kit';
import { page } from '../layout';
import { clearCsrfCookie, pageSession, writeSession } from '../session';
import { deleteAccountBody, deletedBody, profileBody } from '../views-account';

/** The profile (display name, retention window) and the account's deletion: PATCH /app/profile and DELETE /app/account behind forms. */
export function mountProfilePages(pages: Pages): void {
  const { deps } = pages;
  pages.get('/dashboard/profile', async (req, res) => {
    const s = await pageSession(req, deps);
    const p = await getProfile(deps.db, s.principal.workspaceId, s.principal.userId);
    send(
      res,
      200,
      page({ title: 'Profile', session: pages.shell(s, 'profile', p.email), notice: noticeOf(req), body: profileBody(p, s.csrf) }),
    );
  });
  pages.post('/dashboard/profile', async (req, res) => {
    const s = await writeSession(req, deps);
    const retention = nonEmpty(req.body?.retention_days);
    const body = {
      ...(req.body?.display_name !== undefined ? { display_name: str(req.body.display_name) } : {}),
      ...(retention !== undefined ? { retention_days: /^\d{1,6}$/.test(retention) ? Number(retention) : retention } : {}),
    };
    try {
      await pages.callRoute(updateProfileRoute, s, req, res, { body });
      redirect(res, '/dashboard/profile?done=saved');
    } catch (err) {
      const refusal = formRefusal(err);
      if (!refusal) throw err;
      const p = await getProfile(deps.db, s.principal.workspaceId, s.principal.userId);
      send(
        res,
        refusal.status,
        page({ title: 'Profile', session: pages.shell(s, 'profile', p.email), error: refusal.message, body: profileBody(p, s.csrf) }),
      );
    }
  });
  pages.get('/dashboard/account/delete', async (req, res) => {
    const s = await pageSession(req, deps, { allowUnverified: true });
    send(
      res,
      200,
      page({ title: 'Delete account', session: pages.shell(s, 'profile', await pages.emailOf(s)), body: deleteAccountBody(s.csrf) }),
    );
  });
  pages.post('/dashboard/account/delete', async (req, res) => {
    const s = await writeSession(req, deps, { allowUnverified: true });
    try {
      await pages.callRoute(deleteAccountRoute, s, req, res, { body: { confirm: str(req.body?.confirm) ?? '' } });
    } catch (err) {
      const refusal = formRefusal(err);
      if (refusal?.code !== 'INVALID_REQUEST') throw err;
      send(
        res,
        refusal.status,
        page({
          title: 'Delete account',
          session: pages.shell(s, 'profile', await pages.emailOf(s)),
          error: 'Type DELETE (in capital letters) to confirm.',
          body: deleteAccountBody(s.csrf),
        }),
      );
      return;
    }
    clearCsrfCookie(res);
    send(res, 200, page({ title: 'Account deleted', body: deletedBody() }));
  });
}
