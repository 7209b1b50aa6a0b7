import { createHash } from 'node:crypto';
import { ServiceError } from '../../core/errors';
import { PRICE_VERSION, type PlanId } from '../../core/plans';
import type { Stripe } from '../../integrations/payments/stripe-client';
import { creditPackPrice, isPaidPlan, quote, subscriptionPrice, type BillingInterval, type PaidPlan } from './catalogue';
import { atPaymentProvider, requireStripe, type BillingDeps } from './deps';
import { priceIds } from './prices';
import { LIVE_STATUSES } from './subscriptions';

export type CheckoutRequest = { kind: 'subscription'; plan: PaidPlan; interval: BillingInterval } | { kind: 'credits'; units: number };

export interface CheckoutSessionView {
  /** Stripe's Checkout Session id (cs_…). */
  id: string;
  /** Where to send the browser. */
  url: string;
  kind: 'subscription' | 'credits';
  plan: PaidPlan;
  interval: BillingInterval | null;
  units: number | null;
  /** What the customer pays now (subscriptions: the plan's price per interval). */
  amount_usd: number;
  currency: 'usd';
  price_version: string;
  expires_at: string;
}

/** Where Checkout and the portal send the browser back to (the dashboard's billing page). */
export function billingReturnUrl(baseUrl: string, outcome?: 'success' | 'cancelled'): string {
  const base = `${baseUrl.replace(/\/$/, '')}/app/billing`;
  return outcome === 'success'
    ? `${base}?checkout=success&session_id={CHECKOUT_SESSION_ID}`
    : outcome
      ? `${base}?checkout=${outcome}`
      : base;
}

/**
 * The workspace's Stripe customer, created on first use. The creation carries
 * an idempotency key of the workspace and only the first stored id is kept, so
 * racing checkouts share one customer.
 */
export async function ensureCustomer(deps: BillingDeps, stripe: Stripe, workspaceId: string): Promise<string> {
  const ws = await deps.db.workspace.findUniqueOrThrow({
    where: { id: workspaceId },
    select: { stripeCustomerId: true, name: true, users: { select: { email: true }, take: 1, orderBy: { createdAt: 'asc' } } },
  });
  if (ws.stripeCustomerId) return ws.stripeCustomerId;
  const customer = await stripe.customers.create(
    { name: ws.name, email: ws.users[0]?.email, metadata: { workspace_id: workspaceId } },
    { idempotencyKey: `customer-${workspaceId}` },
  );
  await deps.db
    .$executeRaw`UPDATE workspaces SET stripe_customer_id = ${customer.id} WHERE id = ${workspaceId}::uuid AND stripe_customer_id IS NULL`;
  const stored = await deps.db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { stripeCustomerId: true } });
  return stored.stripeCustomerId!;
}

/**
 * Starts a Stripe Checkout for a subscription or a credit purchase.
 * 503 without a payment provider; 409 CONFLICT for a second subscription
 * (plan changes go through the portal); 402 PLAN_REQUIRED for credits on the
 * trial; 422 for units outside the quote's range.
 *
 * The Checkout Session names the workspace in `client_reference_id` and in
 * the metadata, and is created with an idempotency key of the workspace, the
 * request and the minute: a double click gets the same session. A payment
 * provider outage is 503 (atPaymentProvider), for every Stripe call inside.
 */
export function createCheckout(
  deps: BillingDeps,
  workspace: { id: string; plan: PlanId },
  request: CheckoutRequest,
  now = new Date(),
): Promise<CheckoutSessionView> {
  return atPaymentProvider(() => openCheckoutSession(deps, workspace, request, now));
}

async function openCheckoutSession(
  deps: BillingDeps,
  workspace: { id: string; plan: PlanId },
  request: CheckoutRequest,
  now: Date,
): Promise<CheckoutSessionView> {
  const stripe = requireStripe(deps);
  let view: Omit<CheckoutSessionView, 'id' | 'url' | 'expires_at'>;
  let params: Stripe.Checkout.SessionCreateParams;
  const metadata: Record<string, string> = { workspace_id: workspace.id, kind: request.kind, price_version: PRICE_VERSION };
  if (request.kind === 'subscription') {
    const current = await deps.db.subscription.findUnique({ where: { workspaceId: workspace.id }, select: { status: true } });
    if (current && LIVE_STATUSES.has(current.status)) {
      throw new ServiceError('CONFLICT', 'subscription', {
        message: 'The workspace already has a subscription; change its plan or interval in the billing portal (POST /app/billing/portal).',
      });
    }
    const price = subscriptionPrice(request.plan, request.interval);
    const ids = await priceIds(stripe);
    Object.assign(metadata, { plan: request.plan, interval: request.interval });
    params = {
      mode: 'subscription',
      line_items: [{ price: ids.get(price.lookupKey)!, quantity: 1 }],
      subscription_data: { metadata: { ...metadata } },
    };
    view = {
      kind: 'subscription',
      plan: request.plan,
      interval: request.interval,
      units: null,
      amount_usd: price.unitAmountCents / 100,
      currency: 'usd',
      price_version: PRICE_VERSION,
    };
  } else {
    if (!isPaidPlan(workspace.plan)) {
      throw new ServiceError('PLAN_REQUIRED', 'plan', { message: 'The trial cannot buy credits; choose a paid plan first.' });
    }
    const q = quote(workspace.plan, request.units);
    const ids = await priceIds(stripe);
    Object.assign(metadata, { plan: workspace.plan, units: String(request.units) });
    params = {
      mode: 'payment',
      line_items: [{ price: ids.get(creditPackPrice(workspace.plan).lookupKey)!, quantity: request.units / 1000 }],
      payment_intent_data: { metadata: { ...metadata } },
    };
    view = {
      kind: 'credits',
      plan: workspace.plan,
      interval: null,
      units: request.units,
      amount_usd: q.total_usd,
      currency: 'usd',
      price_version: PRICE_VERSION,
    };
  }
  const customer = await ensureCustomer(deps, stripe, workspace.id);
  const fingerprint = createHash('sha256')
    .update(JSON.stringify({ request, plan: workspace.plan, version: PRICE_VERSION }))
    .digest('hex')
    .slice(0, 32);
  const idempotencyKey = `checkout-${workspace.id}-${fingerprint}-${Math.floor(now.getTime() / 60_000)}`;
  const create = (key: string) =>
    stripe.checkout.sessions.create(
      {
        ...params,
        customer,
        client_reference_id: workspace.id,
        metadata,
        success_url: billingReturnUrl(deps.baseUrl, 'success'),
        cancel_url: billingReturnUrl(deps.baseUrl, 'cancelled'),
      },
      { idempotencyKey: key },
    );
  let session = await create(idempotencyKey);
  // The same minute's session already completed or expired (a second purchase right after the first): a new one.
  if (!session.url || session.status !== 'open') session = await create(`${idempotencyKey}-${now.getTime()}`);
  if (!session.url) throw new ServiceError('SERVICE_UNAVAILABLE', 'payment_provider', { message: 'Stripe returned no checkout URL.' });
  return { id: session.id, url: session.url, expires_at: new Date(session.expires_at * 1000).toISOString(), ...view };
}

export interface PortalSessionView {
  id: string;
  url: string;
  return_url: string;
}

/** Opens Stripe's customer portal (plan changes, cancellation, invoices, payment methods). 503 without a payment provider or during its outage. */
export function createPortal(deps: BillingDeps, workspaceId: string): Promise<PortalSessionView> {
  return atPaymentProvider(async () => {
    const stripe = requireStripe(deps);
    const customer = await ensureCustomer(deps, stripe, workspaceId);
    const returnUrl = billingReturnUrl(deps.baseUrl);
    const session = await stripe.billingPortal.sessions.create({ customer, return_url: returnUrl });
    return { id: session.id, url: session.url, return_url: returnUrl };
  });
}
