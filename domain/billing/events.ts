import { ServiceError } from '../../core/errors';
import type { Db } from '../db';
import type { Stripe } from '../../integrations/payments/stripe-client';
import { CREDIT_UNITS_MAX, CREDIT_UNITS_MIN, CREDIT_UNITS_STEP } from './catalogue';
import { atPaymentProvider, type BillingDeps } from './deps';
import { syncSubscription } from './subscriptions';

// Stripe's events, verified and handled. Each handled event id is recorded
// once (billing_events); the handling itself converges on Stripe's current
// state (the subscription or the checkout session is retrieved, not read from
// the event), so a duplicate, a replay or an out-of-order delivery is
// harmless, and recording after the handling means a failed one is retried by
// Stripe. Prepaid credits are keyed by the checkout session
// (billing_credit_purchases), so they are added once even when duplicate
// deliveries run concurrently.

/** Stripe's own default; the spec's webhook signature tolerance is the same 300 s. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export const HANDLED_EVENTS = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
] as const;

export interface EventOutcome {
  received: true;
  event_id: string;
  type: string;
  /** The event id was handled before: nothing was done again. */
  duplicate: boolean;
  /** Not an event type the service acts on. */
  ignored: boolean;
}

/**
 * The ingress: verifies the signature of the raw body (HMAC-SHA-256 over
 * `timestamp.body` with the endpoint's secret, the timestamp within 300 s) and
 * handles the event. 503 while no signing secret is configured; 400 for a
 * missing, wrong or stale signature.
 */
export async function handleStripeEvent(deps: BillingDeps, rawBody: Buffer | string, signature: string | undefined): Promise<EventOutcome> {
  if (!deps.stripe || !deps.webhookSecret) {
    throw new ServiceError('SERVICE_UNAVAILABLE', 'payment_provider', {
      message: 'Stripe events are not accepted: no webhook secret configured.',
    });
  }
  if (!signature) throw new ServiceError('BAD_REQUEST', 'Stripe-Signature', { message: 'The Stripe-Signature header is missing.' });
  let event: Stripe.Event;
  try {
    // stripe-node refuses a timestamp older than the tolerance; one from the future is refused here, so the
    // window is 300 s in both directions (a signature made ahead of time cannot be held back and replayed).
    assertTimestampNotAhead(signature, nowSeconds());
    event = deps.stripe.webhooks.constructEvent(rawBody, signature, deps.webhookSecret, SIGNATURE_TOLERANCE_SECONDS);
  } catch (err) {
    throw new ServiceError('BAD_REQUEST', 'Stripe-Signature', {
      message: 'The Stripe-Signature does not verify (wrong secret, altered body, or a timestamp more than 300 s away from now).',
      cause: err,
    });
  }
  const malformed = malformedEventField(event);
  if (malformed) {
    // Signed by Stripe's secret yet not an event: answering 500 would make Stripe redeliver it for days.
    deps.logger?.warn(
      { field: malformed, event_id: typeof event.id === 'string' ? event.id.slice(0, 100) : null },
      'stripe event malformed',
    );
    throw new ServiceError('BAD_REQUEST', malformed, { message: `The event has no valid ${malformed}.` });
  }
  return processStripeEvent({ ...deps, stripe: deps.stripe }, event);
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Throws when the signature header's timestamp (`t=`) lies more than the tolerance in the future. */
function assertTimestampNotAhead(signature: string, now: number): void {
  const t = /(?:^|,)\s*t=(\d{1,12})(?:,|$)/.exec(signature)?.[1];
  if (t !== undefined && Number(t) > now + SIGNATURE_TOLERANCE_SECONDS) throw new Error('timestamp in the future');
}

/** The first field a verified event lacks (id, type, data.object), or null. */
function malformedEventField(event: unknown): string | null {
  // Typed as Stripe.Event by stripe-node, but only the signature was checked: read it as whatever JSON it is.
  const e: { id?: unknown; type?: unknown; data?: { object?: unknown } | null } = typeof event === 'object' && event !== null ? event : {};
  // Stripe's ids and event types are short printable ASCII (`evt_…`, `invoice.paid`).
  const ascii = (v: unknown) => typeof v === 'string' && /^[\x21-\x7e]{1,255}$/.test(v);
  if (!ascii(e.id)) return 'id';
  if (!ascii(e.type)) return 'type';
  if (!e.data || typeof e.data !== 'object' || !e.data.object || typeof e.data.object !== 'object') return 'data.object';
  return null;
}

/** Handles a verified event (exported for the dashboard and tests; the ingress verifies first). */
export async function processStripeEvent(deps: BillingDeps & { stripe: Stripe }, event: Stripe.Event): Promise<EventOutcome> {
  const outcome = { received: true as const, event_id: event.id, type: event.type };
  if (!(HANDLED_EVENTS as readonly string[]).includes(event.type)) return { ...outcome, duplicate: false, ignored: true };
  if (await deps.db.billingEvent.findUnique({ where: { id: event.id }, select: { id: true } })) {
    return { ...outcome, duplicate: true, ignored: false };
  }
  // Stripe unreachable while reading the object back: 503, and Stripe delivers the event again later.
  const workspaceId = await atPaymentProvider(() => dispatch(deps, event));
  const recorded = await deps.db.$executeRaw`
    INSERT INTO billing_events (id, type, workspace_id, received_at) VALUES (${event.id}, ${event.type}, ${workspaceId}::uuid, now())
    ON CONFLICT (id) DO NOTHING`;
  deps.logger?.info({ event_id: event.id, type: event.type, workspace_id: workspaceId }, 'stripe event handled');
  return { ...outcome, duplicate: recorded === 0, ignored: false };
}

const idOf = (v: string | { id: string } | null | undefined): string | null => (v == null ? null : typeof v === 'string' ? v : v.id);

async function dispatch(deps: BillingDeps & { stripe: Stripe }, event: Stripe.Event): Promise<string | null> {
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      // The session as Stripe holds it now (payment status, metadata), not as the event carried it.
      const session = await deps.stripe.checkout.sessions.retrieve(event.data.object.id);
      if (session.mode === 'subscription') {
        const subId = idOf(session.subscription);
        if (!subId) return null;
        return (await syncSubscription(deps, subId, session.client_reference_id)).workspaceId;
      }
      if (session.mode === 'payment' && session.metadata?.kind === 'credits') return addPurchasedCredits(deps.db, session);
      return null;
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return (await syncSubscription(deps, event.data.object.id)).workspaceId;
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      const invoice = event.data.object;
      const subId = idOf(invoice.parent?.subscription_details?.subscription);
      if (!subId) return null;
      return (await syncSubscription(deps, subId)).workspaceId;
    }
    default:
      return null;
  }
}

/**
 * Adds the credits of a paid credit-purchase session exactly once: the
 * purchase row (primary key: the session id) and the balance move in one
 * transaction, so a concurrent duplicate finds the row and adds nothing.
 */
export async function addPurchasedCredits(db: Db, session: Stripe.Checkout.Session): Promise<string | null> {
  if (session.payment_status !== 'paid') return null;
  const workspaceId = session.client_reference_id ?? session.metadata?.workspace_id ?? null;
  const units = Number(session.metadata?.units);
  if (!workspaceId || !Number.isInteger(units) || units < CREDIT_UNITS_MIN || units > CREDIT_UNITS_MAX || units % CREDIT_UNITS_STEP !== 0) {
    throw new Error(`checkout session ${session.id} has no valid workspace or units in its metadata`);
  }
  const exists = await db.workspace.findUnique({ where: { id: workspaceId }, select: { id: true } });
  if (!exists) return null;
  await db.$transaction(async (tx) => {
    const inserted = await tx.$executeRaw`
      INSERT INTO billing_credit_purchases (checkout_session_id, workspace_id, units, amount_total_cents, created_at)
      VALUES (${session.id}, ${workspaceId}::uuid, ${units}, ${session.amount_total}, now())
      ON CONFLICT (checkout_session_id) DO NOTHING`;
    if (inserted === 0) return;
    await tx.$executeRaw`UPDATE credit_accounts SET prepaid_credits = prepaid_credits + ${units}, updated_at = now() WHERE workspace_id = ${workspaceId}::uuid`;
    await tx.creditLedgerEntry.create({ data: { workspaceId, kind: 'grant_prepaid', amount: units, note: session.id } });
  });
  return workspaceId;
}
