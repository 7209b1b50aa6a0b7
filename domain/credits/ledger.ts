import { addMonths } from '../../core/dates';
import { randomUUID } from 'node:crypto';
import type { Db, Tx } from '../db';
import { ServiceError } from '../../core/errors';
import { PLANS, type PlanId } from '../../core/plans';
import { Prisma } from '../../prisma/generated/client';

// The credits ledger. Balances live in one row per workspace; every movement is
// a conditional UPDATE of that row plus an append-only ledger row, in one
// transaction. The UPDATE's WHERE clause is re-checked under the row lock, so
// concurrent holds can never drive the balance negative, and a hold moves from
// `held` to `charged` or `released` exactly once (the second attempt matches no
// row and changes nothing). CHECK constraints in the migration back this up.

type Client = Db | Tx;

export interface Balance {
  periodCredits: number;
  periodTotal: number;
  prepaidCredits: number;
  reserved: number;
  available: number;
  periodStart: Date;
  periodEnd: Date;
}

/** Opens the account of a new workspace: plan credits for a month (the trial's 50 are given once). */
export async function openCreditAccount(tx: Client, workspaceId: string, plan: PlanId, now = new Date()): Promise<void> {
  const credits = PLANS[plan].monthlyCredits;
  await tx.creditAccount.create({
    data: {
      workspaceId,
      periodCredits: credits,
      periodTotal: credits,
      prepaidCredits: 0,
      reserved: 0,
      periodStart: now,
      periodEnd: addMonths(now, 1),
      renews: plan !== 'trial',
    },
  });
  await tx.creditLedgerEntry.create({ data: { workspaceId, kind: 'grant_period', amount: credits, note: `${plan} plan credits` } });
}

/**
 * Renews monthly credits when `period_end` has passed (lazily, on the next ledger
 * touch, and by the renewal schedule). Unused monthly credits lapse; prepaid stay.
 * The trial never renews: its credits are given once.
 */
export async function renewIfDue(db: Db, workspaceId: string, now = new Date()): Promise<void> {
  await db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ period_end: Date; renews: boolean; plan: PlanId }[]>`
      SELECT a.period_end, a.renews, w.plan::text AS plan
      FROM credit_accounts a JOIN workspaces w ON w.id = a.workspace_id
      WHERE a.workspace_id = ${workspaceId}::uuid AND a.period_end <= ${now} FOR UPDATE OF a`;
    const row = rows[0];
    if (!row) return;
    let start = row.period_end;
    let end = addMonths(start, 1);
    while (end <= now) {
      start = end;
      end = addMonths(start, 1);
    }
    if (!row.renews) {
      // Trial: keep the balance, only move the period forward.
      await tx.$executeRaw`UPDATE credit_accounts SET period_start = ${start}, period_end = ${end}, updated_at = now() WHERE workspace_id = ${workspaceId}::uuid`;
      return;
    }
    const credits = PLANS[row.plan].monthlyCredits;
    // A monthly grant can never be below what is held, so clamp: the CHECK stays true.
    await tx.$executeRaw`
      UPDATE credit_accounts
      SET period_credits = GREATEST(${credits}, reserved - prepaid_credits), period_total = ${credits},
          period_start = ${start}, period_end = ${end}, updated_at = now()
      WHERE workspace_id = ${workspaceId}::uuid`;
    await tx.creditLedgerEntry.create({ data: { workspaceId, kind: 'renew', amount: credits, note: `period ${start.toISOString()}` } });
  });
}

export async function getBalance(db: Db, workspaceId: string, now = new Date()): Promise<Balance> {
  let a = await db.creditAccount.findUniqueOrThrow({ where: { workspaceId } });
  if (a.periodEnd <= now) {
    // Renewal is rare; only then pay for the locking transaction.
    await renewIfDue(db, workspaceId, now);
    a = await db.creditAccount.findUniqueOrThrow({ where: { workspaceId } });
  }
  return {
    periodCredits: a.periodCredits,
    periodTotal: a.periodTotal,
    prepaidCredits: a.prepaidCredits,
    reserved: a.reserved,
    available: a.periodCredits + a.prepaidCredits - a.reserved,
    periodStart: a.periodStart,
    periodEnd: a.periodEnd,
  };
}

/** The 402 a workspace gets when a hold does not fit: the trial's used-up credits need a plan. */
function shortfallError(plan: PlanId, needed: number, available: number, detail: string): ServiceError {
  const message = `This needs ${needed} credits; ${Math.max(0, available)} are available.`;
  return plan === 'trial'
    ? new ServiceError('PLAN_REQUIRED', detail, { message: `The trial credits are used up. ${message}` })
    : new ServiceError('INSUFFICIENT_BALANCE', detail, { message });
}

/** The jobs-in-progress limit of a reservation that adds no job (the column is an int4). */
const NO_JOBS_LIMIT = 2_147_483_647;

/** Jobs-in-progress accounting for holds that back jobs (not discoveries). */
export interface JobSlots {
  /** Jobs this acceptance adds. */
  adding: number;
  /** The plan's jobs-in-progress limit. */
  limit: number;
}

/**
 * Places holds for `amounts` (one per job) in the caller's transaction, all or
 * none, and returns their ids in the same order: writeHolds, then
 * reserveCredits. Callers that write more rows in the same transaction call the
 * two themselves, reserveCredits last.
 */
export async function placeHolds(
  tx: Tx,
  workspaceId: string,
  amounts: number[],
  reason: string,
  opts: { plan: PlanId; detail?: string; jobs?: JobSlots },
): Promise<string[]> {
  const ids = await writeHolds(tx, workspaceId, amounts, reason);
  await reserveCredits(tx, workspaceId, amounts, opts);
  return ids;
}

/** The hold and ledger rows (one statement, new rows only: no lock anyone waits on). */
export async function writeHolds(tx: Tx, workspaceId: string, amounts: number[], reason: string): Promise<string[]> {
  const ids = amounts.map(() => randomUUID());
  await tx.$executeRaw`WITH ${holdsPart({ workspaceId, ids, amounts, reason })} SELECT 1`;
  return ids;
}

/**
 * The hold rows and their ledger entries as two parts of a WITH clause (`holds`, `hold_entries`), written
 * only when `when` holds: writeHolds' statement, or a part of a larger one (accept-work.ts acceptHeldRow).
 */
export function holdsPart(args: { workspaceId: string; ids: string[]; amounts: number[]; reason: string; when?: Prisma.Sql }): Prisma.Sql {
  const { workspaceId, ids, amounts, reason } = args;
  if (amounts.some((a) => !Number.isInteger(a) || a <= 0)) throw new Error('hold amounts must be positive integers');
  return Prisma.sql`
    holds AS (
      INSERT INTO credit_holds (id, workspace_id, amount, status, charged, reason, created_at)
      SELECT id, ${workspaceId}::uuid, amount, 'held', 0, ${reason}, now() FROM unnest(${ids}::uuid[], ${amounts}::int[]) AS h(id, amount)
      WHERE ${args.when ?? Prisma.sql`true`}
      RETURNING id, amount),
    hold_entries AS (
      INSERT INTO credit_ledger_entries (workspace_id, kind, amount, hold_id, note, created_at)
      SELECT ${workspaceId}::uuid, 'hold'::"LedgerEntryKind", amount, id, ${reason}, now() FROM holds)`;
}

/**
 * Reserves the credits of holds written by writeHolds, and counts the jobs they
 * back, in one conditional UPDATE of the workspace's account row. Exact under
 * concurrency: PostgreSQL re-checks the WHERE clause under the row lock. Call it
 * last before the commit: the row is locked from this statement to the commit.
 */
export async function reserveCredits(
  tx: Tx,
  workspaceId: string,
  amounts: number[],
  opts: { plan: PlanId; detail?: string; jobs?: JobSlots },
): Promise<void> {
  const total = amounts.reduce((a, b) => a + b, 0);
  const updated = await tx.$executeRaw(reserveStatement({ workspaceId, total, jobs: opts.jobs }));
  if (updated === 0) throw await reservationRefusal(tx, workspaceId, total, opts);
}

/**
 * The reserving UPDATE (reserveCredits), only when `when` holds: a statement of its own, or a part of a larger
 * one (accept-work.ts acceptHeldRow). It updates no row when the room is not there.
 */
export function reserveStatement(args: { workspaceId: string; total: number; jobs?: JobSlots; when?: Prisma.Sql }): Prisma.Sql {
  const adding = args.jobs?.adding ?? 0;
  const limit = args.jobs?.limit ?? NO_JOBS_LIMIT;
  return Prisma.sql`
    UPDATE credit_accounts SET reserved = reserved + ${args.total}, active_jobs = active_jobs + ${adding}, updated_at = now()
    WHERE workspace_id = ${args.workspaceId}::uuid
      AND period_credits + prepaid_credits - reserved >= ${args.total}
      AND active_jobs + ${adding} <= ${limit}
      AND ${args.when ?? Prisma.sql`true`}`;
}

/**
 * Why a reservation of `total` credits (and `opts.jobs` job slots) found no room: read after the refused
 * statement, as the answer to give. Credits short is CREDITS_EXHAUSTED naming `opts.detail`; otherwise the
 * plan's jobs-in-progress limit, RATE_LIMITED.
 */
export async function reservationRefusal(
  db: Client,
  workspaceId: string,
  total: number,
  opts: { plan: PlanId; detail?: string; jobs?: JobSlots },
): Promise<ServiceError> {
  const limit = opts.jobs?.limit ?? NO_JOBS_LIMIT;
  const rows = await db.$queryRaw<{ available: number; active: number }[]>`
    SELECT period_credits + prepaid_credits - reserved AS available, active_jobs AS active FROM credit_accounts WHERE workspace_id = ${workspaceId}::uuid`;
  const available = Number(rows[0]?.available ?? 0);
  const active = Number(rows[0]?.active ?? 0);
  if (available < total) return shortfallError(opts.plan, total, available, opts.detail ?? 'credits_remaining');
  return new ServiceError('RATE_LIMITED', `jobs_in_progress=${limit}`, {
    message: `The plan allows ${limit} jobs in progress; ${active} are running.`,
    retryAfterSeconds: 10,
  });
}

export type SettleOutcome = { settled: boolean; status: 'charged' | 'released'; charged: number };
/** jobSlot: the hold backs a job counted in the jobs-in-progress limit (reserveCredits): settling it frees the slot. */
export type SettleOptions = { jobSlot?: boolean };

/**
 * Charges `amount` (at most the hold) and frees the rest. Monthly credits are
 * used before prepaid ones. Idempotent: a hold already settled is left alone and
 * its existing outcome is returned.
 */
export async function chargeHold(db: Db, holdId: string, amount: number): Promise<SettleOutcome> {
  return db.$transaction((tx) => chargeHoldIn(tx, holdId, amount));
}

/**
 * chargeHold inside the caller's transaction (finalising a job charges and
 * publishes atomically). One statement: the hold's transition (only one of two
 * racing attempts sees it `held`), the account and the ledger rows move
 * together, so a job's or a discovery's final step costs one round trip here.
 */
export async function chargeHoldIn(tx: Tx, holdId: string, amount: number, opts: SettleOptions = {}): Promise<SettleOutcome> {
  const rows = await tx.$queryRaw<{ charged: number }[]>`
    WITH hold AS (
      UPDATE credit_holds SET status = 'charged', charged = LEAST(amount, ${amount}), settled_at = now()
      WHERE id = ${holdId}::uuid AND status = 'held'
      RETURNING workspace_id, amount, charged),
    account AS (
      UPDATE credit_accounts a
      SET reserved = a.reserved - hold.amount,
          prepaid_credits = a.prepaid_credits - GREATEST(0, hold.charged - a.period_credits),
          period_credits = GREATEST(0, a.period_credits - hold.charged),
          active_jobs = a.active_jobs - ${opts.jobSlot ? 1 : 0},
          updated_at = now()
      FROM hold WHERE a.workspace_id = hold.workspace_id),
    ledger AS (
      INSERT INTO credit_ledger_entries (workspace_id, kind, amount, hold_id, created_at)
      SELECT workspace_id, 'charge'::"LedgerEntryKind", charged, ${holdId}::uuid, now() FROM hold
      UNION ALL
      SELECT workspace_id, 'release'::"LedgerEntryKind", amount - charged, ${holdId}::uuid, now() FROM hold WHERE charged < amount)
    SELECT charged FROM hold`;
  const hold = rows[0];
  if (!hold) return existingOutcome(tx, holdId);
  return { settled: true, status: 'charged', charged: hold.charged };
}

/** Frees the whole hold. Idempotent like chargeHold. */
export async function releaseHold(db: Db, holdId: string): Promise<SettleOutcome> {
  return db.$transaction((tx) => releaseHoldIn(tx, holdId));
}

/** releaseHold inside the caller's transaction, in one statement like chargeHoldIn. */
export async function releaseHoldIn(tx: Tx, holdId: string, opts: SettleOptions = {}): Promise<SettleOutcome> {
  const rows = await tx.$queryRaw<{ amount: number }[]>`
    WITH hold AS (
      UPDATE credit_holds SET status = 'released', settled_at = now()
      WHERE id = ${holdId}::uuid AND status = 'held'
      RETURNING workspace_id, amount),
    account AS (
      UPDATE credit_accounts a SET reserved = a.reserved - hold.amount, active_jobs = a.active_jobs - ${opts.jobSlot ? 1 : 0}, updated_at = now()
      FROM hold WHERE a.workspace_id = hold.workspace_id),
    ledger AS (
      INSERT INTO credit_ledger_entries (workspace_id, kind, amount, hold_id, created_at)
      SELECT workspace_id, 'release'::"LedgerEntryKind", amount, ${holdId}::uuid, now() FROM hold)
    SELECT amount FROM hold`;
  if (!rows[0]) return existingOutcome(tx, holdId);
  return { settled: true, status: 'released', charged: 0 };
}

/** Raises an open hold to `newAmount` when the balance allows (AI transcription measured longer than held). */
export async function increaseHold(db: Db, holdId: string, newAmount: number, plan: PlanId): Promise<void> {
  await db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ workspace_id: string; amount: number; status: string }[]>`
      SELECT workspace_id::text, amount, status::text FROM credit_holds WHERE id = ${holdId}::uuid FOR UPDATE`;
    const hold = rows[0];
    if (!hold || hold.status !== 'held') throw new Error(`hold ${holdId} is not open`);
    const extra = newAmount - hold.amount;
    if (extra <= 0) return;
    const ok = await tx.$executeRaw`
      UPDATE credit_accounts SET reserved = reserved + ${extra}, updated_at = now()
      WHERE workspace_id = ${hold.workspace_id}::uuid AND period_credits + prepaid_credits - reserved >= ${extra}`;
    if (ok === 0) throw shortfallError(plan, newAmount, 0, 'credits_remaining');
    await tx.$executeRaw`UPDATE credit_holds SET amount = ${newAmount} WHERE id = ${holdId}::uuid`;
    await tx.creditLedgerEntry.create({
      data: { workspaceId: hold.workspace_id, kind: 'hold', amount: extra, holdId, note: 'raised to measured cost' },
    });
  });
}

async function existingOutcome(tx: Tx, holdId: string): Promise<SettleOutcome> {
  const hold = await tx.creditHold.findUnique({ where: { id: holdId } });
  if (!hold) throw new Error(`no such hold ${holdId}`);
  if (hold.status === 'held') throw new Error(`hold ${holdId} still open`);
  return { settled: false, status: hold.status, charged: hold.charged };
}
