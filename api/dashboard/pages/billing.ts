import { quote } from '../../../domain/billing';
import { ServiceError } from '../../../core/errors';
import { getUsage } from '../../../domain/credits/usage';
import { checkoutRoute, portalRoute } from '../../routes/billing';
import { noticeOf, redirect, send, str, type Pages } from '../kit';
import { page } from '../layout';
import { pageSession, writeSession, type PageSession } from '../session';
import { billingBody, type QuoteView } from '../views-billing';

// The billing page: the plan, credits, a quote calculator; its forms are POST /app/billing/checkout and
// POST /app/billing/portal (api/routes/billing.ts), and the page only redirects to the provider.

/** The calculator: a quote, or the refusal (the trial, a number out of range) as its message. */
function quoteFor(s: PageSession, units: string): { result: QuoteView | null; error: string | null } {
  try {
    return { result: quote(s.principal.plan, /^\d{1,7}$/.test(units) ? Number(units) : NaN), error: null };
  } catch (err) {
    if (err instanceof ServiceError && err.status < 500) return { result: null, error: err.message };
    throw err;
  }
}

/** The checkout form as the route's body: a subscription (plan, interval) or a credit pack (units). */
function checkoutBody(form: Record<string, unknown>): unknown {
  return form.kind === 'credits'
    ? { kind: 'credits', units: /^\d{1,7}$/.test(String(form.units ?? '')) ? Number(form.units) : form.units }
    : { kind: 'subscription', plan: form.plan, ...(form.interval ? { interval: form.interval } : {}) };
}

export function mountBillingPages(pages: Pages): void {
  const { deps, router } = pages;
  // The payment provider sends the browser back here (domain/billing's return URL).
  router.get('/app/billing', (req, res) => {
    const outcome =
      req.query.checkout === 'success' ? '?done=checkout_success' : req.query.checkout === 'cancelled' ? '?done=checkout_cancelled' : '';
    redirect(res, `/dashboard/billing${outcome}`);
  });
  pages.get('/dashboard/billing', async (req, res) => {
    const s = await pageSession(req, deps);
    const [usage, email] = await Promise.all([getUsage(deps, s.principal.workspaceId), pages.emailOf(s)]);
    const units = str(req.query.units);
    const calculator =
      units === undefined ? { units: 5000, result: null, error: null } : { units: Number(units) || 5000, ...quoteFor(s, units) };
    send(
      res,
      200,
      page({
        title: 'Billing',
        notice: noticeOf(req),
        session: pages.shell(s, 'billing', email),
        body: billingBody(usage, s.csrf, calculator, Boolean(deps.stripe)),
      }),
    );
  });
  pages.post('/dashboard/billing/checkout', async (req, res) => {
    const s = await writeSession(req, deps);
    const reply = await pages.callRoute(checkoutRoute, s, req, res, { body: checkoutBody(req.body as Record<string, unknown>) });
    redirect(res, (reply.body as { url: string }).url);
  });
  pages.post('/dashboard/billing/portal', async (req, res) => {
    const s = await writeSession(req, deps);
    const reply = await pages.callRoute(portalRoute, s, req, res);
    redirect(res, (reply.body as { url: string }).url);
  });
}
