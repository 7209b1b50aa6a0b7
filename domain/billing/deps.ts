import type { Logger } from 'pino';
import type { Db } from '../db';
import { ServiceError } from '../errors';
import type { Stripe } from '../../integrations/payments/stripe-client';

/** What the billing functions need; the API builds it from its deps (api/routes/billing.ts), the dashboard the same way. */
export interface BillingDeps {
  db: Db;
  /** null when no STRIPE_SECRET_KEY is configured: checkout and portal answer 503. */
  stripe: Stripe | null;
  /** The Stripe webhook endpoint's signing secret; null when events are not accepted (503). */
  webhookSecret: string | null;
  /** Where Checkout and the portal send the browser back to (PUBLIC_BASE_URL). */
  baseUrl: string;
  logger?: Logger;
}

export function requireStripe(deps: BillingDeps): Stripe {
  if (!deps.stripe)
    throw new ServiceError('SERVICE_UNAVAILABLE', 'payment_provider', { message: 'The payment provider is not configured yet.' });
  return deps.stripe;
}
