import type { Response } from 'express';
import { listDeliveries, listWebhookEndpoints } from '../../../domain/webhooks/endpoints';
import { createEndpointRoute, disableEndpointRoute, resendDeliveryRoute } from '../../routes/webhooks';
import { formRefusal, nonEmpty, noticeOf, send, str, type Pages } from '../kit';
import { page } from '../layout';
import { pageSession, writeSession, type PageSession } from '../session';
import { webhooksBody } from '../views-webhooks';

type CreatedEndpoint = Parameters<typeof webhooksBody>[3];

/** Webhook endpoints (a new one with its secret shown once, disable) and the delivery log (resend). */
export function mountWebhookPages(pages: Pages): void {
  const { deps } = pages;
  const render = async (
    res: Response,
    s: PageSession,
    status: number,
    extra: { created?: CreatedEndpoint; error?: string; notice?: string | null; values?: { url?: string; description?: string } } = {},
  ) => {
    const [endpoints, deliveries, email] = await Promise.all([
      listWebhookEndpoints(deps.db, s.principal.workspaceId),
      listDeliveries(deps.db, s.principal.workspaceId, 50),
      pages.emailOf(s),
    ]);
    send(
      res,
      status,
      page({
        title: 'Webhooks',
        session: pages.shell(s, 'webhooks', email),
        error: extra.error,
        notice: extra.notice,
        body: webhooksBody(endpoints, deliveries, s.csrf, extra.created, extra.values),
      }),
    );
  };
  pages.get('/dashboard/webhooks', async (req, res) => render(res, await pageSession(req, deps), 200, { notice: noticeOf(req) }));
  pages.post('/dashboard/webhooks', async (req, res) => {
    const s = await writeSession(req, deps);
    const values = { url: str(req.body?.url), description: nonEmpty(req.body?.description) };
    try {
      const reply = await pages.callRoute(createEndpointRoute, s, req, res, { body: values });
      await render(res, s, 201, { created: reply.body as CreatedEndpoint });
    } catch (err) {
      const refusal = formRefusal(err);
      if (!refusal) throw err;
      await render(res, s, refusal.status, { error: refusal.message, values });
    }
  });
  pages.idAction('/dashboard/webhooks/:id/disable', disableEndpointRoute, () => '/dashboard/webhooks?done=disabled');
  pages.idAction('/dashboard/webhooks/deliveries/:id/resend', resendDeliveryRoute, () => '/dashboard/webhooks?done=resent');
}
