// Billing with Stripe: the functions the API routes (api/routes/billing.ts) and the dashboard call.
export { quote, type CreditQuote, PAID_PLANS, BILLING_INTERVALS, type PaidPlan, type BillingInterval } from './catalogue';
export { createCheckout, createPortal, type CheckoutRequest, type CheckoutSessionView, type PortalSessionView } from './checkout';
export { handleStripeEvent, processStripeEvent, type EventOutcome } from './events';
export { grantDueMonthlyCredits, settleBilling, syncSubscription } from './subscriptions';
export { syncPrices } from './prices';
export type { BillingDeps } from './deps';
