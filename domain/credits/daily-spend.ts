import type { Db } from '../db';

export interface DailySpend {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  credits: number;
}

/**
 * Credits charged per UTC day over the last `days` days (today included),
 * oldest first, a zero for a day without charges. Read from the ledger's
 * `charge` rows (released remainders of holds are not spending).
 */
export async function dailyCreditsSpent(db: Db, workspaceId: string, days = 30, now = new Date()): Promise<DailySpend[]> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const from = new Date(today - (days - 1) * 86_400_000);
  const rows = await db.$queryRaw<{ day: string; credits: bigint }[]>`
    SELECT to_char(date_trunc('day', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day, SUM(amount)::bigint AS credits
    FROM credit_ledger_entries
    WHERE workspace_id = ${workspaceId}::uuid AND kind = 'charge' AND created_at >= ${from}
    GROUP BY 1`;
  const byDay = new Map(rows.map((r) => [r.day, Number(r.credits)]));
  return Array.from({ length: days }, (_, i) => {
    const day = new Date(from.getTime() + i * 86_400_000).toISOString().slice(0, 10);
    return { day, credits: byDay.get(day) ?? 0 };
  });
}
