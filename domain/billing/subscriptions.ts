import { forgetWorkspacePrincipals } from '../accounts/principal-cache';
import { addMonths } from '../../core/dates';
import type { Db, Tx } from '../db';
import { PLANS, type PlanId } from '../../core/plans';
import type { Stripe } from '../../integrations/payments/stripe-client';
import { isPaidPlan, parseLookupKey, planRank, type BillingInterval, type PaidPlan } from './catalogue';

// Subscriptions converge on Stripe's current state. An event only says which
// subscription to look at: it is retrieved from Stripe (with its latest
// invoice) and stored, and the workspace's plan and credits are derived from
// what is stored, in one transaction under the workspace's credit-account row
// lock. So duplicate, replayed and reordered events all end in the same state.
//
// Credits and plans (README, "Billing"):
// - Every paid monthly slice of a billing period is one row of
//   billing_credit_grants (primary key workspace + slice start): the monthly
//   grant happens once whoever triggers it (an event, a usage read after the
//   slice ended, the sweep). Monthly plans have one slice per billing period;
//   yearly plans twelve, anchored at the period start.
// - A slice is granted only when the period's invoice is paid (never during the
//   hour between Stripe's renewal and its payment, nor while past_due).
// - The effective plan is the highest of Stripe's current plan (while the
//   subscription is live) and the plan of the grant covering now: an upgrade
//   applies at once, a downgrade or a cancellation when the paid slice ends.

/** Subscription statuses under which the plan applies (past_due: Stripe is still retrying the payment). */
export const LIVE_STATUSES: ReadonlySet<string> = new Set(['active', 'trialing', 'past_due']);

export interface SubscriptionState {
  id: string;
  customerId: string | null;
  status: string;
  plan: PaidPlan | null;
  priceLookupKey: string | null;
  interval: BillingInterval;
  cancelAtPeriodEnd: boolean;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  periodPaid: boolean;
  metadataWorkspaceId: string | null;
}

/** Reads what we keep from a Stripe subscription (API 2025+: the period sits on the subscription items). */
export function subscriptionStateFrom(sub: Stripe.Subscription): SubscriptionState {
  const item = sub.items.data[0];
  if (!item) throw new Error(`Stripe subscription ${sub.id} has no items`);
  const price = item.price;
  const parsed = parseLookupKey(price.lookup_key);
  const metaPlan = price.metadata?.plan;
  const plan = parsed?.kind === 'subscription' ? parsed.plan : isPaidPlan(metaPlan) ? metaPlan : null;
  const interval: BillingInterval =
    parsed?.kind === 'subscription' ? parsed.interval : price.recurring?.interval === 'year' ? 'yearly' : 'monthly';
  const starts = sub.items.data.map((i) => i.current_period_start);
  const ends = sub.items.data.map((i) => i.current_period_end);
  const invoice = sub.latest_invoice;
  return {
    id: sub.id,
    customerId: typeof sub.customer === 'string' ? sub.customer : (sub.customer?.id ?? null),
    status: sub.status,
    plan,
    priceLookupKey: price.lookup_key ?? null,
    interval,
    cancelAtPeriodEnd: sub.cancel_at_period_end,
    currentPeriodStart: new Date(Math.min(...starts) * 1000),
    currentPeriodEnd: new Date(Math.max(...ends) * 1000),
    periodPaid: typeof invoice === 'object' && invoice !== null && invoice.status === 'paid',
    metadataWorkspaceId: sub.metadata?.workspace_id ?? null,
  };
}

/** The monthly slice of [start, end) that holds `at`: start + k months, never past `end`. */
export function monthlySliceAt(start: Date, end: Date, at: Date): { start: Date; end: Date } | null {
  if (at < start || at >= end) return null;
  for (let k = 0; k < 1200; k++) {
    const s = addMonths(start, k);
    const e = new Date(Math.min(addMonths(start, k + 1).getTime(), end.getTime()));
    if (at < e) return { start: s, end: e };
  }
  return null;
}

const isUuid = (v: string | null | undefined): v is string =>
  !!v && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v);

/** The workspace a subscription belongs to: by its stored row, our metadata, the checkout's reference, or the customer. */
async function resolveWorkspace(db: Db, state: SubscriptionState, hint: string | null): Promise<string | null> {
  const stored = await db.subscription.findUnique({ where: { stripeSubscriptionId: state.id }, select: { workspaceId: true } });
  if (stored) return stored.workspaceId;
  for (const candidate of [state.metadataWorkspaceId, hint]) {
    if (isUuid(candidate) && (await db.workspace.findUnique({ where: { id: candidate }, select: { id: true } }))) return candidate;
  }
  if (state.customerId) {
    const ws = await db.workspace.findUnique({ where: { stripeCustomerId: state.customerId }, select: { id: true } });
    if (ws) return ws.id;
  }
  return null;
}

/** Serialises every billing change of a workspace (and its credit movements) on the account row. */
async function lockAccount(tx: Tx, workspaceId: string): Promise<void> {
  await tx.$queryRaw`SELECT workspace_id FROM credit_accounts WHERE workspace_id = ${workspaceId}::uuid FOR UPDATE`;
}

export interface SyncOutcome {
  workspaceId: string | null;
  /** false when the read was older than the stored state, or belonged to an ended subscription a newer one replaced. */
  stored: boolean;
  plan: PlanId | null;
}

/**
 * Retrieves subscription `id` from Stripe and converges the workspace on it.
 * `hint`: the workspace named by the checkout session (client_reference_id).
 */
export async function syncSubscription(
  deps: { db: Db; stripe: Stripe },
  id: string,
  hint: string | null = null,
  now: () => Date = () => new Date(),
): Promise<SyncOutcome> {
  // The time before the read: a read started later never loses to one started earlier.
  const readAt = new Date();
  const sub = await deps.stripe.subscriptions.retrieve(id, { expand: ['latest_invoice'] });
  const state = subscriptionStateFrom(sub);
  const workspaceId = await resolveWorkspace(deps.db, state, hint);
  if (!workspaceId) return { workspaceId: null, stored: false, plan: null };
  const result = await deps.db.$transaction(async (tx) => {
    await lockAccount(tx, workspaceId);
    const row = await tx.subscription.findUnique({ where: { workspaceId } });
    let stored = true;
    if (row && row.stripeSubscriptionId === state.id && row.stateAt > readAt) stored = false;
    if (row && row.stripeSubscriptionId !== state.id && LIVE_STATUSES.has(row.status) && !LIVE_STATUSES.has(state.status)) stored = false;
    if (stored) {
      const data = {
        stripeSubscriptionId: state.id,
        status: state.status,
        interval: state.interval,
        cancelAtPeriodEnd: state.cancelAtPeriodEnd,
        currentPeriodStart: state.currentPeriodStart,
        currentPeriodEnd: state.currentPeriodEnd,
        plan: state.plan,
        priceLookupKey: state.priceLookupKey,
        stripeCustomerId: state.customerId,
        periodPaid: state.periodPaid,
        stateAt: readAt,
      };
      await tx.subscription.upsert({ where: { workspaceId }, create: { workspaceId, ...data }, update: data });
      if (state.customerId) {
        await tx.$executeRaw`UPDATE workspaces SET stripe_customer_id = ${state.customerId} WHERE id = ${workspaceId}::uuid AND stripe_customer_id IS NULL`;
      }
    }
    return { stored, ...(await applyEntitlement(tx, workspaceId, now())) };
  });
  if (result.changed) forgetWorkspacePrincipals(deps.db, workspaceId);
  return { workspaceId, stored: result.stored, plan: result.plan };
}

/**
 * Converges a workspace's plan and credits on its stored subscription at `now`
 * (no Stripe call): the monthly grant of a paid slice that has begun, an
 * upgrade, a downgrade or cancellation whose paid slice has ended. Used after
 * every sync, when a usage read finds the credit period over, and by the sweep.
 */
export async function settleBilling(db: Db, workspaceId: string, now = new Date()): Promise<PlanId | null> {
  const r = await db.$transaction(async (tx) => {
    await lockAccount(tx, workspaceId);
    return applyEntitlement(tx, workspaceId, now);
  });
  if (r.changed) forgetWorkspacePrincipals(db, workspaceId);
  return r.plan;
}

/**
 * The monthly grant job: settles every workspace with a subscription whose
 * credit period has ended (yearly plans get their monthly credits here when
 * no usage read came first). Idempotent; safe to run from several processes.
 */
export async function grantDueMonthlyCredits(db: Db, now = new Date()): Promise<number> {
  const due = await db.$queryRaw<{ workspace_id: string }[]>`
    SELECT s.workspace_id::text FROM subscriptions s JOIN credit_accounts a ON a.workspace_id = s.workspace_id
    WHERE a.period_end <= ${now}`;
  for (const { workspace_id } of due) await settleBilling(db, workspace_id, now);
  return due.length;
}

async function applyEntitlement(tx: Tx, workspaceId: string, now: Date): Promise<{ changed: boolean; plan: PlanId | null }> {
  const sub = await tx.subscription.findUnique({ where: { workspaceId } });
  if (!sub) return { changed: false, plan: null };
  const ws = await tx.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { plan: true, retentionDays: true } });
  const live = LIVE_STATUSES.has(sub.status) && isPaidPlan(sub.plan);
  const stripePlan: PlanId = live ? (sub.plan as PaidPlan) : 'trial';

  // 1. The monthly grant of the paid slice that holds `now`.
  const slice = sub.currentPeriodStart ? monthlySliceAt(sub.currentPeriodStart, sub.currentPeriodEnd, now) : null;
  if (live && sub.periodPaid && slice) {
    const credits = PLANS[stripePlan].monthlyCredits;
    const inserted = await tx.$executeRaw`
      INSERT INTO billing_credit_grants (workspace_id, period_start, period_end, plan, credits, stripe_subscription_id, created_at)
      VALUES (${workspaceId}::uuid, ${slice.start}, ${slice.end}, ${stripePlan}::"Plan", ${credits}, ${sub.stripeSubscriptionId}, now())
      ON CONFLICT (workspace_id, period_start) DO NOTHING`;
    if (inserted > 0) {
      // Unused monthly credits of the last slice lapse; prepaid ones stay. Never below what is held (the CHECK stays true).
      await tx.$executeRaw`
        UPDATE credit_accounts
        SET period_credits = GREATEST(${credits}, reserved - prepaid_credits), period_total = ${credits},
            period_start = ${slice.start}, period_end = ${slice.end}, renews = false, updated_at = now()
        WHERE workspace_id = ${workspaceId}::uuid`;
      await tx.creditLedgerEntry.create({
        data: {
          workspaceId,
          kind: 'grant_period',
          amount: credits,
          note: `${stripePlan} ${sub.stripeSubscriptionId} ${slice.start.toISOString()}`,
        },
      });
    }
  }

  // 2. The effective plan: Stripe's while live, or higher while a paid slice of a higher plan still runs.
  const covering = await tx.billingCreditGrant.findFirst({
    where: { workspaceId, periodStart: { lte: now }, periodEnd: { gt: now } },
    orderBy: { periodStart: 'desc' },
  });
  const coveringPlan: PlanId = covering && isPaidPlan(covering.plan) ? covering.plan : 'trial';
  const effective = planRank(coveringPlan) > planRank(stripePlan) ? coveringPlan : stripePlan;
  if (effective === ws.plan) return { changed: false, plan: ws.plan };

  const max = PLANS[effective].retentionDays;
  if (planRank(effective) > planRank(ws.plan)) {
    // Upgrade: at once, with the plan's longest retention; the running slice is topped up to the new plan's credits.
    await tx.workspace.update({ where: { id: workspaceId }, data: { plan: effective, retentionDays: max } });
    if (covering && planRank(effective) > planRank(coveringPlan)) {
      const credits = PLANS[effective].monthlyCredits;
      const extra = credits - covering.credits;
      await tx.billingCreditGrant.update({
        where: { workspaceId_periodStart: { workspaceId, periodStart: covering.periodStart } },
        data: { plan: effective, credits },
      });
      await tx.$executeRaw`
        UPDATE credit_accounts SET period_credits = period_credits + ${extra}, period_total = ${credits}, updated_at = now()
        WHERE workspace_id = ${workspaceId}::uuid`;
      await tx.creditLedgerEntry.create({
        data: { workspaceId, kind: 'grant_period', amount: extra, note: `upgrade to ${effective} ${covering.periodStart.toISOString()}` },
      });
    }
  } else {
    // Downgrade or end: the paid slice of the higher plan is over. Retention shrinks to what the plan allows.
    await tx.workspace.update({ where: { id: workspaceId }, data: { plan: effective, retentionDays: Math.min(ws.retentionDays, max) } });
    if (effective === 'trial') {
      // Monthly credits lapse; prepaid ones stay; the trial's free credits are never given again.
      await tx.$executeRaw`
        UPDATE credit_accounts
        SET period_credits = GREATEST(0, reserved - prepaid_credits), period_total = 0,
            period_start = ${now}, period_end = ${addMonths(now, 1)}, renews = false, updated_at = now()
        WHERE workspace_id = ${workspaceId}::uuid`;
      await tx.creditLedgerEntry.create({
        data: { workspaceId, kind: 'grant_period', amount: 0, note: `subscription ${sub.stripeSubscriptionId} ended` },
      });
    }
  }
  return { changed: true, plan: effective };
}

/** Whether a stored subscription still shows in GET /v1/usage: while live, or while its paid plan still applies. */
export function subscriptionVisible(status: string, plan: PlanId): boolean {
  return LIVE_STATUSES.has(status) || plan !== 'trial';
}
