import type { Response } from 'express';
import { listApiKeys } from '../../../domain/accounts/accounts';
import { createKeyRoute, revokeKeyRoute } from '../../routes/account';
import { formRefusal, noticeOf, send, str, type Pages } from '../kit';
import { page } from '../layout';
import { pageSession, writeSession, type PageSession } from '../session';
import { keysBody } from '../views-account';

type CreatedKey = Parameters<typeof keysBody>[2];

/** API keys: the list, a new key (its secret shown once), revoke. */
export function mountKeyPages(pages: Pages): void {
  const { deps } = pages;
  const render = async (
    res: Response,
    s: PageSession,
    status: number,
    extra: { created?: CreatedKey; error?: string; notice?: string | null } = {},
  ) => {
    const [keys, email] = await Promise.all([listApiKeys(deps.db, s.principal.workspaceId), pages.emailOf(s)]);
    send(
      res,
      status,
      page({
        title: 'API keys',
        session: pages.shell(s, 'keys', email),
        error: extra.error,
        notice: extra.notice,
        body: keysBody(keys, s.csrf, extra.created),
      }),
    );
  };
  pages.get('/dashboard/keys', async (req, res) => render(res, await pageSession(req, deps), 200, { notice: noticeOf(req) }));
  pages.post('/dashboard/keys', async (req, res) => {
    const s = await writeSession(req, deps);
    const scopes = req.body?.scopes === undefined ? [] : ([] as unknown[]).concat(req.body.scopes);
    try {
      const reply = await pages.callRoute(createKeyRoute, s, req, res, { body: { name: str(req.body?.name), scopes } });
      // The secret is in this response only: the page is not cached and nothing keeps it for a second rendering.
      await render(res, s, 201, { created: reply.body as CreatedKey });
    } catch (err) {
      const refusal = formRefusal(err);
      if (!refusal) throw err;
      await render(res, s, refusal.status, { error: refusal.message });
    }
  });
  pages.idAction('/dashboard/keys/:id/revoke', revokeKeyRoute, () => '/dashboard/keys?done=revoked');
}
