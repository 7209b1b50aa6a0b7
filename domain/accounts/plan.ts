import type { Db } from '../db';
import { forgetWorkspacePrincipals } from './principal-cache';
import { addMonths } from '../../core/dates';
import { PLANS, type PlanId } from '../../core/plans';

/**
 * Moves a workspace to `plan` (subscription started or changed): a new monthly
 * period starts now with the plan's credits; prepaid credits and holds stay.
 */
export async function changePlan(db: Db, workspaceId: string, plan: PlanId, now = new Date()): Promise<void> {
  const credits = PLANS[plan].monthlyCredits;
  await db.$transaction(async (tx) => {
    const ws = await tx.workspace.findUniqueOrThrow({ where: { id: workspaceId } });
    await tx.workspace.update({
      where: { id: workspaceId },
      data: { plan, retentionDays: Math.min(Math.max(ws.retentionDays, PLANS[plan].retentionDays), PLANS[plan].retentionDays) },
    });
    await tx.$executeRaw`
      UPDATE credit_accounts
      SET period_credits = GREATEST(${credits}, reserved - prepaid_credits), period_total = ${credits},
          period_start = ${now}, period_end = ${addMonths(now, 1)}, renews = ${plan !== 'trial'}, updated_at = now()
      WHERE workspace_id = ${workspaceId}::uuid`;
    await tx.creditLedgerEntry.create({ data: { workspaceId, kind: 'grant_period', amount: credits, note: `plan changed to ${plan}` } });
  });
  // After the commit, so no request here re-reads the old plan into the cache.
  forgetWorkspacePrincipals(db, workspaceId);
}
