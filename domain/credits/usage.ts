import type { Db } from '../db';
import { MINIMUM_BILLABLE_SECONDS, TRANSCRIBE_CREDITS_PER_MINUTE } from '../plans';
import { getBalance } from './ledger';

export async function getUsage(db: Db, workspaceId: string) {
  const [balance, workspace, subscription] = await Promise.all([
    getBalance(db, workspaceId),
    db.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { plan: true } }),
    db.subscription.findUnique({ where: { workspaceId } }),
  ]);
  return {
    plan: workspace.plan,
    period_end: balance.periodEnd.toISOString(),
    credits_remaining: balance.available,
    credits_total: balance.periodTotal,
    credits_reserved: balance.reserved,
    prepaid_credits: balance.prepaidCredits,
    transcribe_credits_per_minute: TRANSCRIBE_CREDITS_PER_MINUTE as 2,
    minimum_billable_seconds: MINIMUM_BILLABLE_SECONDS as 60,
    subscription: subscription
      ? {
          status: subscription.status,
          interval: subscription.interval as 'monthly' | 'yearly',
          cancel_at_period_end: subscription.cancelAtPeriodEnd,
          current_period_end: subscription.currentPeriodEnd.toISOString(),
        }
      : null,
  };
}
