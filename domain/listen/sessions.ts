import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { ServiceError } from '../../core/errors';
import { PLANS, type PlanId } from '../../core/plans';
import type { Db } from '../db';
import { chargeHoldIn, increaseHold, placeHolds } from '../credits/ledger';

// Real-time streams (GET /v1/listen): the per-workspace limit, the credits and the browser tokens. The streams
// themselves run in the recognizer processes; what must be shared by every API instance lives here, in PostgreSQL.
//
// Price: AI transcription's, 2 credits a minute, counted by the second of audio received and rounded up to whole
// credits (a credit is 30 s), with no minimum: a 40 s stream costs 2 credits, a 5-minute one 10. Credits are held a
// minute ahead while the stream runs, charged for the audio when it ends, and the rest released.

/** Seconds of audio one credit pays for (2 credits a minute). */
export const LISTEN_SECONDS_PER_CREDIT = 30;
/** Credits held ahead of the audio: a minute's worth. */
export const LISTEN_HOLD_AHEAD_CREDITS = 2;
/** A stream whose instance has not reported for this long is taken as gone and settled from its last report. */
export const LISTEN_STALE_AFTER_S = 60;
/** How long a browser token may wait before it opens its stream. */
export const LISTEN_TOKEN_TTL_S = 60;
const TOKEN_PREFIX = 'lt_';

export function listenCredits(audioMs: number): number {
  return Math.ceil(audioMs / 1000 / LISTEN_SECONDS_PER_CREDIT);
}

function assertPlanStreams(plan: PlanId): void {
  if (!PLANS[plan].paid) throw new ServiceError('PLAN_REQUIRED', 'plan', { message: 'Real-time transcription needs a paid plan.' });
}

function streamLimitReached(limit: number, active: number): ServiceError {
  return new ServiceError('RATE_LIMITED', `streams_per_workspace=${limit}`, {
    message: `At most ${limit} real-time streams of a workspace run at once; ${active} are running.`,
    retryAfterSeconds: 5,
  });
}

export interface ListenSession {
  id: string;
  holdId: string;
  /** Credits held now; the stream may run until its audio is worth them. */
  held: number;
}

/**
 * Opens a stream of `workspaceId`: refused when the plan cannot transcribe (PLAN_REQUIRED), when `limit` streams
 * of the workspace run already (RATE_LIMITED), or when the first minute cannot be held (INSUFFICIENT_BALANCE).
 * Streams whose instance went silent are settled first, so a crashed instance never holds a slot for long.
 */
export async function openListenSession(
  db: Db,
  args: {
    workspaceId: string;
    plan: PlanId;
    limit: number;
    language: string | null;
    tokenId?: string;
    encoding?: string;
    keepAudio?: boolean;
  },
): Promise<ListenSession> {
  assertPlanStreams(args.plan);
  await settleStaleListenSessions(db, args.workspaceId);
  const id = randomUUID();
  const holdId = await db.$transaction(async (tx) => {
    // One stream start of a workspace at a time, so the count below is exact across API instances.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`listen:${args.workspaceId}`}, 0))`;
    const [{ active }] = await tx.$queryRaw<{ active: number }[]>`
      SELECT count(*)::int AS active FROM listen_sessions WHERE workspace_id = ${args.workspaceId}::uuid AND active`;
    if (active >= args.limit) throw streamLimitReached(args.limit, active);
    if (args.tokenId) {
      const used = await tx.$queryRaw<unknown[]>`SELECT 1 FROM listen_sessions WHERE token_id = ${args.tokenId}::uuid`;
      if (used.length > 0) throw new ServiceError('UNAUTHENTICATED', 'token', { message: 'This token has opened its stream already.' });
    }
    const [hold] = await placeHolds(tx, args.workspaceId, [LISTEN_HOLD_AHEAD_CREDITS], 'listen', {
      plan: args.plan,
      detail: 'credits_remaining',
    });
    await tx.$executeRaw`
      INSERT INTO listen_sessions (id, workspace_id, hold_id, token_id, language, encoding, keep_audio, audio_expires_at)
      VALUES (${id}::uuid, ${args.workspaceId}::uuid, ${hold!}::uuid, ${args.tokenId ?? null}::uuid, ${args.language},
              ${args.encoding ?? 'pcm_s16le'}, ${args.keepAudio ?? false},
              CASE WHEN ${args.keepAudio ?? false} THEN now() + make_interval(days => ${PLANS[args.plan].retentionDays}) END)`;
    return hold!;
  });
  return { id, holdId, held: LISTEN_HOLD_AHEAD_CREDITS };
}

/**
 * What openListenSession would refuse now, checked without holding anything (the plain GET /v1/listen answers it,
 * so a client whose upgrade failed, a browser above all, which never sees the refusal's status, can learn why).
 * A recognizer with no free slot is not known here: the upgrade finds out.
 */
export async function assertListenAllowed(db: Db, args: { workspaceId: string; plan: PlanId; limit: number }): Promise<void> {
  assertPlanStreams(args.plan);
  const [row] = await db.$queryRaw<{ active: number; available: number }[]>`
    SELECT (SELECT count(*)::int FROM listen_sessions
            WHERE workspace_id = ${args.workspaceId}::uuid AND active
              AND seen_at >= now() - make_interval(secs => ${LISTEN_STALE_AFTER_S})) AS active,
           (SELECT period_credits + prepaid_credits - reserved FROM credit_accounts WHERE workspace_id = ${args.workspaceId}::uuid) AS available`;
  if ((row?.active ?? 0) >= args.limit) throw streamLimitReached(args.limit, row!.active);
  if (Number(row?.available ?? 0) < LISTEN_HOLD_AHEAD_CREDITS)
    throw new ServiceError('INSUFFICIENT_BALANCE', 'credits_remaining', {
      message: `A stream needs ${LISTEN_HOLD_AHEAD_CREDITS} credits held to start; ${Math.max(0, Number(row?.available ?? 0))} are available.`,
    });
}

/**
 * Records the audio a stream has received so far (its instance calls it every few seconds) and keeps the hold a
 * minute ahead of it. Throws INSUFFICIENT_BALANCE (or PLAN_REQUIRED) when the next minute cannot be held: the
 * caller ends the stream, and the audio so far is charged.
 */
export async function recordListenAudio(db: Db, session: ListenSession, audioMs: number, plan: PlanId): Promise<void> {
  const needed = listenCredits(audioMs) + LISTEN_HOLD_AHEAD_CREDITS;
  await db.$executeRaw`
    UPDATE listen_sessions SET audio_ms = GREATEST(audio_ms, ${Math.floor(audioMs)}), seen_at = now()
    WHERE id = ${session.id}::uuid AND active`;
  // Raised once the credit being used is the last one held, so the hold stays 30–60 s ahead of the audio.
  if (listenCredits(audioMs) + 1 <= session.held) return;
  await increaseHold(db, session.holdId, needed, plan);
  session.held = needed;
}

/** Ends a stream and charges its audio (at most what was held). Idempotent: a second call changes nothing. */
export async function closeListenSession(db: Db, sessionId: string, audioMs: number): Promise<{ credits: number; audioMs: number }> {
  return db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ hold_id: string; audio_ms: number }[]>`
      UPDATE listen_sessions SET active = false, ended_at = now(), audio_ms = GREATEST(audio_ms, ${Math.floor(audioMs)})
      WHERE id = ${sessionId}::uuid AND active
      RETURNING hold_id::text, audio_ms`;
    const row = rows[0];
    if (!row) {
      const [done] = await tx.$queryRaw<{ credits_charged: number; audio_ms: number }[]>`
        SELECT credits_charged, audio_ms FROM listen_sessions WHERE id = ${sessionId}::uuid`;
      return { credits: done?.credits_charged ?? 0, audioMs: done?.audio_ms ?? 0 };
    }
    const outcome = await chargeHoldIn(tx, row.hold_id, listenCredits(row.audio_ms));
    await tx.$executeRaw`UPDATE listen_sessions SET credits_charged = ${outcome.charged} WHERE id = ${sessionId}::uuid`;
    return { credits: outcome.charged, audioMs: row.audio_ms };
  });
}

/** Settles the streams whose API instance stopped reporting (it died): charged for the audio last reported. */
export async function settleStaleListenSessions(db: Db, workspaceId?: string): Promise<number> {
  const stale = await db.$queryRaw<{ id: string }[]>`
    SELECT id::text FROM listen_sessions
    WHERE active AND seen_at < now() - make_interval(secs => ${LISTEN_STALE_AFTER_S})
      AND (${workspaceId ?? null}::uuid IS NULL OR workspace_id = ${workspaceId ?? null}::uuid)`;
  for (const { id } of stale) await closeListenSession(db, id, 0);
  return stale.length;
}

// ------------------------------------------------------------------------------------------- browser tokens

/**
 * A token a server mints with its API key (POST /v1/listen/tokens) and hands to a browser, which cannot send an
 * Authorization header on a WebSocket: it opens one stream of the workspace within LISTEN_TOKEN_TTL_S, nothing
 * else. Signed, not stored; the stream it opens records its id, so it is used once.
 */
export function mintListenToken(secretsKey: string, workspaceId: string, now = Date.now()): { token: string; expiresAt: Date } {
  const expiresAt = new Date(now + LISTEN_TOKEN_TTL_S * 1000);
  const payload = Buffer.from(JSON.stringify({ w: workspaceId, t: randomUUID(), e: Math.floor(expiresAt.getTime() / 1000) })).toString(
    'base64url',
  );
  return { token: `${TOKEN_PREFIX}${payload}.${tokenSignature(secretsKey, payload)}`, expiresAt };
}

/** The workspace and token id of a valid, unexpired token; null otherwise. */
export function readListenToken(secretsKey: string, token: string, now = Date.now()): { workspaceId: string; tokenId: string } | null {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 512) return null;
  const [payload, signature] = token.slice(TOKEN_PREFIX.length).split('.');
  if (!payload || !signature) return null;
  const expected = Buffer.from(tokenSignature(secretsKey, payload));
  const sent = Buffer.from(signature);
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) return null;
  try {
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { w?: unknown; t?: unknown; e?: unknown };
    if (typeof body.w !== 'string' || typeof body.t !== 'string' || typeof body.e !== 'number') return null;
    if (body.e * 1000 <= now) return null;
    return { workspaceId: body.w, tokenId: body.t };
  } catch {
    return null;
  }
}

function tokenSignature(secretsKey: string, payload: string): string {
  const key = createHmac('sha256', secretsKey).update('listen-token-v1').digest();
  return createHmac('sha256', key).update(payload).digest('base64url');
}

/** The workspace a browser token speaks for, as a caller: refused when it is disabled. */
export async function listenTokenWorkspace(db: Db, workspaceId: string): Promise<{ workspaceId: string; plan: PlanId }> {
  const rows = await db.$queryRaw<{ plan: PlanId; status: string }[]>`
    SELECT plan::text AS plan, status::text AS status FROM workspaces WHERE id = ${workspaceId}::uuid`;
  const ws = rows[0];
  if (!ws) throw new ServiceError('UNAUTHENTICATED', 'token', { message: 'The token is not valid.' });
  if (ws.status !== 'active') throw new ServiceError('FORBIDDEN', 'workspace', { message: 'This workspace is disabled.' });
  return { workspaceId, plan: ws.plan };
}
