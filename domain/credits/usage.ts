import type { Pool } from 'pg';
import type { Db } from '../db';
import { MINIMUM_BILLABLE_SECONDS, TRANSCRIBE_CREDITS_PER_MINUTE, type PlanId } from '../../core/plans';
import { renewIfDue } from './ledger';
import { settleBilling, subscriptionVisible } from '../billing/subscriptions';

interface UsageRow {
  plan: PlanId;
  period_credits: number;
  period_total: number;
  prepaid_credits: number;
  reserved: number;
  period_end: Date;
  sub_status: string | null;
  sub_interval: 'monthly' | 'yearly' | null;
  sub_cancel: boolean | null;
  sub_period_end: Date | null;
}

const USAGE_SQL = `
    SELECT w.plan::text AS plan, a.period_credits, a.period_total, a.prepaid_credits, a.reserved, a.period_end,
           s.status AS sub_status, s.interval AS sub_interval, s.cancel_at_period_end AS sub_cancel, s.current_period_end AS sub_period_end
    FROM credit_accounts a JOIN workspaces w ON w.id = a.workspace_id LEFT JOIN subscriptions s ON s.workspace_id = a.workspace_id
    WHERE a.workspace_id = $1::uuid`;

/**
 * GET /v1/usage in one query (a hot read: straight on the pg pool, a prepared
 * statement, without the ORM's per-query work); renews the period first when
 * it has ended.
 */
export async function getUsage(store: { db: Db; pool: Pool }, workspaceId: string) {
  const read = async () => (await store.pool.query<UsageRow>({ name: 'usage-read', text: USAGE_SQL, values: [workspaceId] })).rows;
  let [row] = await read();
  if (row && row.period_end <= new Date()) {
    // A Stripe subscription's next monthly slice, or its downgrade or end, first (domain/billing); then the
    // ledger's own renewal (plans without a subscription; it never grants a subscription's workspace).
    if (row.sub_status) await settleBilling(store.db, workspaceId);
    await renewIfDue(store.db, workspaceId);
    [row] = await read();
  }
  if (!row) throw new Error(`no credit account for workspace ${workspaceId}`);
  return {
    plan: row.plan,
    period_end: row.period_end.toISOString(),
    credits_remaining: row.period_credits + row.prepaid_credits - row.reserved,
    credits_total: row.period_total,
    credits_reserved: row.reserved,
    prepaid_credits: row.prepaid_credits,
    transcribe_credits_per_minute: TRANSCRIBE_CREDITS_PER_MINUTE as 2,
    minimum_billable_seconds: MINIMUM_BILLABLE_SECONDS as 60,
    // Stripe's stored state while the subscription is live or its paid plan still applies; null otherwise.
    subscription:
      row.sub_status && subscriptionVisible(row.sub_status, row.plan)
        ? {
            status: row.sub_status,
            interval: row.sub_interval!,
            cancel_at_period_end: row.sub_cancel!,
            current_period_end: row.sub_period_end!.toISOString(),
          }
        : null,
  };
}
