import Stripe from 'stripe';

// stripe-node, configured from settings handed down by domain/config.ts. It
// knows nothing of plans or workspaces (domain/billing does).

export interface StripeSettings {
  secretKey: string;
  /** Another API server (stripe-mock in dev and tests): `http://127.0.0.1:12111`; null for api.stripe.com. */
  apiBase: string | null;
  /** The webhook endpoint's signing secret (`whsec_…`); null when events are not accepted. */
  webhookSecret: string | null;
}

export function createStripeClient(settings: Pick<StripeSettings, 'secretKey' | 'apiBase'>): Stripe {
  const base = settings.apiBase ? new URL(settings.apiBase) : null;
  return new Stripe(settings.secretKey, {
    // Connection errors, 409 and 5xx are retried by stripe-node with backoff (same idempotency key).
    maxNetworkRetries: 2,
    timeout: 20_000,
    appInfo: { name: 'transcript-service' },
    ...(base
      ? {
          host: base.hostname,
          port: Number(base.port || (base.protocol === 'https:' ? 443 : 80)),
          protocol: base.protocol === 'https:' ? ('https' as const) : ('http' as const),
        }
      : {}),
  });
}

/**
 * Stripe could not be reached, failed on its side (5xx) or kept rate limiting,
 * after stripe-node's own retries: an outage to try again after, not a fault
 * of the request or of this service.
 */
export function isStripeUnavailable(err: unknown): boolean {
  return (
    err instanceof Stripe.errors.StripeConnectionError ||
    err instanceof Stripe.errors.StripeAPIError ||
    err instanceof Stripe.errors.StripeRateLimitError
  );
}

export type { Stripe };
