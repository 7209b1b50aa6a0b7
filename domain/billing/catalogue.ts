import { ServiceError } from '../../core/errors';
import { PLANS, PRICE_VERSION, type PlanId } from '../../core/plans';

// The one price list (PRICE_VERSION), derived from the plan table in
// core/plans.ts and synced to Stripe prices by lookup key
// (domain/billing/prices.ts). A new schedule gets a new PRICE_VERSION and so
// new lookup keys; subscriptions on older prices keep them (the plan is read
// back from any version's key).
//
// - Subscriptions: Starter 19, Pro 49, Scale 149 USD a month; yearly 10 × the
//   monthly price (190, 490, 1,490 USD: two months free). Both grant the plan's
//   monthly credits every month.
// - Extra credits: packs of 1,000 at 8 / 7 / 6 USD by plan; 10 % off from
//   10,000 credits, 20 % from 50,000 (on the whole quantity). In Stripe one
//   `tiered` price per plan with `tiers_mode: volume`, quantity = packs, so
//   Stripe's total is exactly the quote.

export const PAID_PLANS = ['starter', 'pro', 'scale'] as const;
export type PaidPlan = (typeof PAID_PLANS)[number];
export const BILLING_INTERVALS = ['monthly', 'yearly'] as const;
export type BillingInterval = (typeof BILLING_INTERVALS)[number];

export const CREDIT_UNITS_MIN = 1_000;
export const CREDIT_UNITS_MAX = 100_000;
export const CREDIT_UNITS_STEP = 1_000;

/** Volume discounts, highest threshold first. */
export const CREDIT_DISCOUNTS = [
  { fromUnits: 50_000, percent: 20 },
  { fromUnits: 10_000, percent: 10 },
  { fromUnits: 0, percent: 0 },
] as const;

export interface SubscriptionPrice {
  lookupKey: string;
  plan: PaidPlan;
  interval: BillingInterval;
  unitAmountCents: number;
  monthlyCredits: number;
  productName: string;
}

export interface CreditPackPrice {
  lookupKey: string;
  plan: PaidPlan;
  /** Stripe volume tiers over packs of 1,000 credits (`upToPacks` null = infinity). */
  tiers: { upToPacks: number | null; unitAmountCents: number }[];
  productName: string;
}

const KEY_PREFIX = 'ts';

export function subscriptionLookupKey(plan: PaidPlan, interval: BillingInterval, version = PRICE_VERSION): string {
  return `${KEY_PREFIX}_${version}_${plan}_${interval}`;
}

export function creditPackLookupKey(plan: PaidPlan, version = PRICE_VERSION): string {
  return `${KEY_PREFIX}_${version}_credits_${plan}`;
}

/** A lookup key of any price version back to what it sells; null for a key that is not ours. */
export function parseLookupKey(
  key: string | null | undefined,
):
  | { kind: 'subscription'; plan: PaidPlan; interval: BillingInterval; version: string }
  | { kind: 'credits'; plan: PaidPlan; version: string }
  | null {
  const m = /^ts_(\d{4}-\d{2}-\d{2})_(?:(starter|pro|scale)_(monthly|yearly)|credits_(starter|pro|scale))$/.exec(key ?? '');
  if (!m) return null;
  if (m[2]) return { kind: 'subscription', plan: m[2] as PaidPlan, interval: m[3] as BillingInterval, version: m[1]! };
  return { kind: 'credits', plan: m[4] as PaidPlan, version: m[1]! };
}

function per1000Cents(plan: PaidPlan): number {
  return PLANS[plan].creditPackUsdPer1000! * 100;
}

function discounted(cents: number, percent: number): number {
  return (cents * (100 - percent)) / 100;
}

export const SUBSCRIPTION_PRICES: SubscriptionPrice[] = PAID_PLANS.flatMap((plan) =>
  BILLING_INTERVALS.map((interval) => ({
    lookupKey: subscriptionLookupKey(plan, interval),
    plan,
    interval,
    unitAmountCents: (interval === 'monthly' ? PLANS[plan].priceUsdPerMonth : PLANS[plan].priceUsdPerYear) * 100,
    monthlyCredits: PLANS[plan].monthlyCredits,
    productName: `${PLANS[plan].name} plan (${interval})`,
  })),
);

export const CREDIT_PACK_PRICES: CreditPackPrice[] = PAID_PLANS.map((plan) => ({
  lookupKey: creditPackLookupKey(plan),
  plan,
  // Packs 1–9: full price; 10–49: 10 % off; 50 and more: 20 % off (volume: the tier of the whole quantity applies).
  tiers: [
    { upToPacks: CREDIT_DISCOUNTS[1].fromUnits / 1000 - 1, unitAmountCents: per1000Cents(plan) },
    { upToPacks: CREDIT_DISCOUNTS[0].fromUnits / 1000 - 1, unitAmountCents: discounted(per1000Cents(plan), CREDIT_DISCOUNTS[1].percent) },
    { upToPacks: null, unitAmountCents: discounted(per1000Cents(plan), CREDIT_DISCOUNTS[0].percent) },
  ],
  productName: `Extra credits (${PLANS[plan].name} plan), per 1,000`,
}));

export function subscriptionPrice(plan: PaidPlan, interval: BillingInterval): SubscriptionPrice {
  return SUBSCRIPTION_PRICES.find((p) => p.plan === plan && p.interval === interval)!;
}

export function creditPackPrice(plan: PaidPlan): CreditPackPrice {
  return CREDIT_PACK_PRICES.find((p) => p.plan === plan)!;
}

export function isPaidPlan(plan: string | null | undefined): plan is PaidPlan {
  return (PAID_PLANS as readonly string[]).includes(plan ?? '');
}

/** Order of plans for upgrades and downgrades. */
export function planRank(plan: PlanId): number {
  return ['trial', 'starter', 'pro', 'scale'].indexOf(plan);
}

export interface CreditQuote {
  plan: PaidPlan;
  units: number;
  /** List price of 1,000 credits on this plan. */
  unit_price_usd_per_1000: number;
  discount_percent: number;
  /** Price of 1,000 credits after the discount. */
  discounted_usd_per_1000: number;
  total_usd: number;
  /** The same total in cents (what Stripe charges). */
  total_cents: number;
  currency: 'usd';
  price_version: string;
}

/**
 * Price of `units` extra credits for `plan` with the volume discount. 422
 * INVALID_REQUEST naming `units` outside 1,000–100,000 in steps of 1,000, or
 * naming `plan` when the plan cannot buy credits (the trial).
 */
export function quote(plan: PlanId, units: number): CreditQuote {
  if (!Number.isInteger(units) || units < CREDIT_UNITS_MIN || units > CREDIT_UNITS_MAX || units % CREDIT_UNITS_STEP !== 0) {
    throw new ServiceError('INVALID_REQUEST', 'units', {
      message: `units must be ${CREDIT_UNITS_MIN} to ${CREDIT_UNITS_MAX} in steps of ${CREDIT_UNITS_STEP}.`,
    });
  }
  if (!isPaidPlan(plan)) {
    throw new ServiceError('INVALID_REQUEST', 'plan', { message: 'The trial cannot buy credits; choose a paid plan first.' });
  }
  const packs = units / 1000;
  const tier = creditPackPrice(plan).tiers.find((t) => t.upToPacks === null || packs <= t.upToPacks)!;
  const discount = CREDIT_DISCOUNTS.find((d) => units >= d.fromUnits)!;
  const totalCents = packs * tier.unitAmountCents;
  return {
    plan,
    units,
    unit_price_usd_per_1000: PLANS[plan].creditPackUsdPer1000!,
    discount_percent: discount.percent,
    discounted_usd_per_1000: tier.unitAmountCents / 100,
    total_usd: totalCents / 100,
    total_cents: totalCents,
    currency: 'usd',
    price_version: PRICE_VERSION,
  };
}
