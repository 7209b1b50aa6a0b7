import type { Logger } from 'pino';
import type { Db } from '../db';
import { ServiceError } from '../../core/errors';
import { isStripeUnavailable, type Stripe } from '../../integrations/payments/stripe-client';

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

/** How long a caller should wait before trying again after a payment provider outage. */
const PROVIDER_RETRY_AFTER_S = 30;

/**
 * A call to the payment provider. Its outage is 503 SERVICE_UNAVAILABLE
 * naming `payment_provider`, retryable with Retry-After, instead of an
 * internal error; any other failure is left as it is.
 */
export async function atPaymentProvider<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!isStripeUnavailable(err)) throw err;
    throw new ServiceError('SERVICE_UNAVAILABLE', 'payment_provider', {
      message: 'The payment provider cannot be reached right now; try again shortly.',
      retryAfterSeconds: PROVIDER_RETRY_AFTER_S,
      cause: err,
    });
  }
}
