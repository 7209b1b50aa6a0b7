import { createCheckout, createPortal, handleStripeEvent, quote } from '../../domain/billing';
import {
  CheckoutRequest,
  CheckoutSessionSchema,
  PortalSessionSchema,
  QuoteQuery,
  QuoteSchema,
  StripeEventAckSchema,
} from '../../domain/schemas/billing';
import { defineRoute, type AnyRoute } from '../http/route';
import { billingDeps } from '../wiring';

const tags = ['Account'];

/** The billing functions' dependencies from the API's. */

const quoteRoute = defineRoute({
  method: 'get',
  path: '/app/billing/quote',
  operationId: 'quoteCredits',
  summary: 'Price of extra credits for this plan, volume discount applied',
  description:
    'Per 1,000 credits: 8 USD on Starter, 7 on Pro, 6 on Scale; 10 % off from 10,000 credits and 20 % from 50,000. 422 INVALID_REQUEST naming `units` outside 1,000–100,000 in steps of 1,000, or naming `plan` on the trial (it cannot buy credits).',
  tags,
  auth: { kind: 'required', scope: null },
  query: QuoteQuery,
  responses: { 200: { description: 'Quote.', schema: QuoteSchema } },
  errors: [],
  handler: async ({ principal, query }) => ({ status: 200, body: quote(principal.plan, query.units) }),
});

export const checkoutRoute = defineRoute({
  method: 'post',
  path: '/app/billing/checkout',
  operationId: 'createCheckout',
  summary: 'Start a checkout for a subscription or a credit purchase',
  description:
    'A Stripe Checkout Session for the workspace (its `client_reference_id`). Subscriptions: Starter 19, Pro 49, Scale 149 USD a month, or yearly at 10 × the monthly price; the monthly credits are granted every month either way. ' +
    'Credits: as quoted by GET /app/billing/quote. 503 SERVICE_UNAVAILABLE while no payment provider is configured, or while it cannot be reached (with Retry-After); 409 CONFLICT when the workspace already has a subscription (change it in the portal); 402 PLAN_REQUIRED for credits on the trial.',
  tags,
  auth: { kind: 'required', scope: null, sessionOnly: true },
  body: CheckoutRequest,
  responses: { 200: { description: 'Redirect the browser to `url`.', schema: CheckoutSessionSchema } },
  errors: ['SERVICE_UNAVAILABLE', 'CONFLICT', 'PLAN_REQUIRED'],
  handler: async ({ principal, deps, body }) => ({
    status: 200,
    body: await createCheckout(billingDeps(deps), { id: principal.workspaceId, plan: principal.plan }, body),
  }),
});

export const portalRoute = defineRoute({
  method: 'post',
  path: '/app/billing/portal',
  operationId: 'createPortalSession',
  summary: 'Open the customer billing portal',
  description:
    "Stripe's customer portal: change plan or interval, cancel at period end, invoices and payment methods. 503 SERVICE_UNAVAILABLE without a payment provider or while it cannot be reached (with Retry-After).",
  tags,
  auth: { kind: 'required', scope: null, sessionOnly: true },
  responses: { 200: { description: 'Redirect the browser to `url`.', schema: PortalSessionSchema } },
  errors: ['SERVICE_UNAVAILABLE'],
  handler: async ({ principal, deps }) => ({ status: 200, body: await createPortal(billingDeps(deps), principal.workspaceId) }),
});

// Stripe's events: the raw body (api/app.ts keeps it raw on this path) verified
// with the endpoint's signing secret; never in the public document.
const stripeIngress = defineRoute({
  method: 'post',
  path: '/ingress/stripe',
  operationId: 'stripeEvents',
  summary: 'Stripe webhook events',
  tags: ['Ingress'],
  auth: { kind: 'public' },
  internal: true,
  responses: { 200: { description: 'Handled (or a duplicate, or a type the service ignores).', schema: StripeEventAckSchema } },
  errors: ['BAD_REQUEST', 'SERVICE_UNAVAILABLE'],
  handler: async ({ deps, req }) => {
    const raw: unknown = req.body;
    const body = Buffer.isBuffer(raw) ? raw : Buffer.from(typeof raw === 'string' ? raw : '');
    return { status: 200, body: await handleStripeEvent(billingDeps(deps), body, req.get('stripe-signature')) };
  },
});

export const billingRoutes: AnyRoute[] = [quoteRoute, checkoutRoute, portalRoute];
export const billingIngressRoutes: AnyRoute[] = [stripeIngress];
