import { createCheckout, createPortal, quote } from '../../domain/billing';
import { ServiceError } from '../../core/errors';
import { CheckoutRequest } from '../../domain/schemas/billing';
import type { AppDeps } from '../http/context';
import { parseInput } from '../http/parse-input';
import { billingDeps } from '../wiring';
import { page } from './layout';
import type { PageSession } from './session';
import { billingBody, type QuoteView, type Usage } from './views-account';

// The billing page's writes and quote: the same domain functions as
// GET /app/billing/quote, POST /app/billing/checkout and POST /app/billing/portal
// (domain/billing), with the same request schema; the page only redirects.

/** The checkout form: a subscription (plan, interval) or a credit pack (units); answers the provider's URL. */
export async function checkout(deps: AppDeps, s: PageSession, form: Record<string, unknown>): Promise<string> {
  const body =
    form.kind === 'credits'
      ? { kind: 'credits', units: /^\d{1,7}$/.test(String(form.units ?? '')) ? Number(form.units) : form.units }
      : { kind: 'subscription', plan: form.plan, ...(form.interval ? { interval: form.interval } : {}) };
  const request = parseInput(CheckoutRequest, body, 'body');
  const session = await createCheckout(billingDeps(deps), { id: s.principal.workspaceId, plan: s.principal.plan }, request);
  return session.url;
}

export async function portal(deps: AppDeps, s: PageSession): Promise<string> {
  return (await createPortal(billingDeps(deps), s.principal.workspaceId)).url;
}

/** The calculator: a quote, or the refusal (the trial, a number out of range) as its message. */
export function quoteFor(s: PageSession, units: string): { result: QuoteView | null; error: string | null } {
  try {
    return { result: quote(s.principal.plan, /^\d{1,7}$/.test(units) ? Number(units) : NaN), error: null };
  } catch (err) {
    if (err instanceof ServiceError && err.status < 500) return { result: null, error: err.message };
    throw err;
  }
}

export function billingPage(
  deps: AppDeps,
  s: PageSession,
  email: string,
  usage: Usage,
  quote: { units: number; result: QuoteView | null; error: string | null },
  notice: string | null,
): string {
  return page({
    title: 'Billing',
    notice,
    session: { csrf: s.csrf, email, current: 'billing' },
    body: billingBody(usage, s.csrf, quote, Boolean(deps.stripe)),
  });
}
