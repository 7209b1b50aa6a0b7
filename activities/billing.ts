import { grantDueMonthlyCredits } from '../domain/billing';
import type { Db } from '../domain/db';

// Billing's periodic step: monthly credits for workspaces whose credit month
// ended without a usage read or a Stripe event to settle it (yearly plans
// between invoices). Idempotent: each month is granted once (billing_credit_grants).

export function createBillingActivities(db: Db) {
  return {
    /** Settles every workspace whose credit period has ended; the number settled. */
    async grantDueMonthlyCredits(): Promise<number> {
      return grantDueMonthlyCredits(db);
    },
  };
}
