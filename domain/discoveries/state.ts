import { chargeHoldIn, releaseHoldIn } from '../credits/ledger';
import { JOB_FINAL_CHANNEL } from '../jobs/wakeups';
import { fromJsonColumn, jsonColumn, type Db, type Tx } from '../db';
import type { ErrorObject } from '../../core/errors';
import type { DiscoveryPage, LanguageDiscoveryResult } from '../../integrations/platforms/discovery-types';
import type { DiscoveryType } from '../../workflows/definitions';
import { encodeCursor } from './cursor';
import { DISCOVERY_CREDITS, type VideoListing } from './submit';

// A discovery's state after acceptance: processing, then succeeded with the
// page and the 1-credit charge in one transaction, or failed with the hold
// released in one transaction. Each step is idempotent (a final discovery is
// left alone), so the workflow may repeat any of them.

const OPEN = ['queued', 'processing'];

/**
 * The workflow's first step, one statement: marks the discovery processing and
 * reads what to fetch. Null when it is gone or already final (nothing to do).
 * Repeating it changes nothing (a processing discovery stays processing).
 */
export async function claimVideoListing(db: Db, id: string): Promise<VideoListing | null> {
  const rows = await db.$queryRaw<{ listing: VideoListing }[]>`
    UPDATE video_discoveries SET status = 'processing', workflow_started_at = COALESCE(workflow_started_at, now()), updated_at = now()
    WHERE id = ${id}::uuid AND status = ANY(${OPEN}::"DiscoveryStatus"[])
    RETURNING listing`;
  return rows[0]?.listing ?? null;
}

/** claimVideoListing for a language discovery: the video whose caption languages to list. */
export async function claimLanguageMediaId(db: Db, id: string): Promise<string | null> {
  const rows = await db.$queryRaw<{ media_id: string }[]>`
    UPDATE language_discoveries SET status = 'processing', workflow_started_at = COALESCE(workflow_started_at, now()), updated_at = now()
    WHERE id = ${id}::uuid AND status = ANY(${OPEN}::"DiscoveryStatus"[])
    RETURNING media_id`;
  return rows[0]?.media_id ?? null;
}

/** Stores the page, its signed next_cursor, and charges the hold. */
export async function completeVideoDiscovery(db: Db, secretsKey: string, id: string, page: DiscoveryPage): Promise<void> {
  await db.$transaction(async (tx) => {
    const row = await tx.videoDiscovery.findUniqueOrThrow({ where: { id } });
    if (!OPEN.includes(row.status)) return;
    const listing = fromJsonColumn<VideoListing>(row.listing);
    const nextCursor = page.next
      ? encodeCursor(secretsKey, { workspaceId: row.workspaceId, kind: row.kind, listingHash: listing.listingHash }, page.next)
      : null;
    await tx.videoDiscovery.update({
      where: { id },
      data: {
        status: 'succeeded',
        videos: jsonColumn(page.videos),
        profile: page.profile ? jsonColumn(page.profile) : undefined,
        nextCursor,
        creditsCharged: DISCOVERY_CREDITS,
      },
    });
    if (row.holdId) await chargeHoldIn(tx, row.holdId, DISCOVERY_CREDITS);
    await wakeWaiters(tx, id);
  });
}

export async function completeLanguageDiscovery(db: Db, id: string, result: LanguageDiscoveryResult): Promise<void> {
  await db.$transaction(async (tx) => {
    const row = await tx.languageDiscovery.findUniqueOrThrow({ where: { id } });
    if (!OPEN.includes(row.status)) return;
    await tx.languageDiscovery.update({
      where: { id },
      data: {
        status: 'succeeded',
        video: jsonColumn(result.video),
        tracks: jsonColumn(result.tracks),
        creditsCharged: DISCOVERY_CREDITS,
      },
    });
    if (row.holdId) await chargeHoldIn(tx, row.holdId, DISCOVERY_CREDITS);
    await wakeWaiters(tx, id);
  });
}

/** Failed: the error recorded and the hold released; nothing charged. */
export async function failDiscovery(db: Db, type: DiscoveryType, id: string, error: ErrorObject): Promise<void> {
  await db.$transaction(async (tx) => {
    const row =
      type === 'video'
        ? await tx.videoDiscovery.findUnique({ where: { id }, select: { status: true, holdId: true } })
        : await tx.languageDiscovery.findUnique({ where: { id }, select: { status: true, holdId: true } });
    if (!row || !OPEN.includes(row.status)) return;
    const data = { status: 'failed' as const, error: jsonColumn(error) };
    if (type === 'video') await tx.videoDiscovery.update({ where: { id }, data });
    else await tx.languageDiscovery.update({ where: { id }, data });
    if (row.holdId) await releaseHoldIn(tx, row.holdId);
    await wakeWaiters(tx, id);
  });
}

/** Long polls waiting for this discovery wake once the commit makes the final state visible (the channel jobs use; ids are unique). */
async function wakeWaiters(tx: Tx, id: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_notify(${JOB_FINAL_CHANNEL}, ${id})`;
}

/** Removes discoveries past their retention (final ones; one still running keeps its row until it settles its hold). */
export async function purgeExpiredDiscoveries(db: Db, batchSize = 500): Promise<number> {
  const video = await db.$executeRaw`
    DELETE FROM video_discoveries WHERE id IN (
      SELECT id FROM video_discoveries WHERE expires_at <= now() AND status IN ('succeeded', 'failed') LIMIT ${batchSize})`;
  const language = await db.$executeRaw`
    DELETE FROM language_discoveries WHERE id IN (
      SELECT id FROM language_discoveries WHERE expires_at <= now() AND status IN ('succeeded', 'failed') LIMIT ${batchSize})`;
  return video + language;
}
