import type { Stripe } from '../../integrations/payments/stripe-client';
import { CREDIT_PACK_PRICES, SUBSCRIPTION_PRICES, type CreditPackPrice, type SubscriptionPrice } from './catalogue';
import { PRICE_VERSION } from '../../core/plans';

// The price list in Stripe, found by lookup key. Syncing lists the active
// prices with our keys and creates only the missing ones; a creation carries an
// idempotency key derived from the lookup key, and Stripe refuses a second
// active price with the same lookup key (no `transfer_lookup_key`), so two API
// instances syncing at once cannot duplicate a price.

export type PriceIds = Map<string, string>;

function allLookupKeys(): string[] {
  return [...SUBSCRIPTION_PRICES.map((p) => p.lookupKey), ...CREDIT_PACK_PRICES.map((p) => p.lookupKey)];
}

/** Active Stripe prices with our lookup keys (Stripe takes at most 10 keys per list call). */
export async function listPriceIds(stripe: Stripe, keys = allLookupKeys()): Promise<PriceIds> {
  const found: PriceIds = new Map();
  for (let i = 0; i < keys.length; i += 10) {
    const chunk = keys.slice(i, i + 10);
    const page = await stripe.prices.list({ lookup_keys: chunk, active: true, limit: 100 });
    for (const price of page.data) {
      // Only exact matches count (a server that ignores the filter must not make us skip a creation).
      if (price.lookup_key && chunk.includes(price.lookup_key) && !found.has(price.lookup_key)) found.set(price.lookup_key, price.id);
    }
  }
  return found;
}

function createParams(p: SubscriptionPrice | CreditPackPrice): Stripe.PriceCreateParams {
  const common = {
    currency: 'usd',
    lookup_key: p.lookupKey,
    product_data: { name: p.productName, metadata: { plan: p.plan, price_version: PRICE_VERSION } },
  };
  if ('interval' in p) {
    return {
      ...common,
      unit_amount: p.unitAmountCents,
      recurring: { interval: p.interval === 'monthly' ? 'month' : 'year' },
      metadata: {
        kind: 'subscription',
        plan: p.plan,
        interval: p.interval,
        monthly_credits: String(p.monthlyCredits),
        price_version: PRICE_VERSION,
      },
    };
  }
  return {
    ...common,
    billing_scheme: 'tiered',
    tiers_mode: 'volume',
    tiers: p.tiers.map((t) => ({ up_to: t.upToPacks ?? 'inf', unit_amount: t.unitAmountCents })),
    metadata: { kind: 'credits', plan: p.plan, credits_per_unit: '1000', price_version: PRICE_VERSION },
  };
}

/** Makes Stripe hold every price of the list; returns lookup key → price id. Idempotent. */
export async function syncPrices(stripe: Stripe): Promise<{ ids: PriceIds; created: string[] }> {
  const ids = await listPriceIds(stripe);
  const created: string[] = [];
  for (const p of [...SUBSCRIPTION_PRICES, ...CREDIT_PACK_PRICES]) {
    if (ids.has(p.lookupKey)) continue;
    const price = await stripe.prices.create(createParams(p), { idempotencyKey: `price-${p.lookupKey}` });
    ids.set(p.lookupKey, price.id);
    created.push(p.lookupKey);
  }
  return { ids, created };
}

const synced = new WeakMap<Stripe, Promise<PriceIds>>();

/** syncPrices once per Stripe client (per process); a failed sync is tried again by the next caller. */
export function priceIds(stripe: Stripe): Promise<PriceIds> {
  let p = synced.get(stripe);
  if (!p) {
    p = syncPrices(stripe).then((r) => r.ids);
    p.catch(() => synced.delete(stripe));
    synced.set(stripe, p);
  }
  return p;
}
