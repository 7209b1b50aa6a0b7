import { Prisma } from '../../prisma/generated/client';
import type { Segment } from '../../core/timing';
import type { Db } from '../db';
import { ACCENTED_CONFIG, momentsOf } from './moments';

/**
 * The version of how moments are cut and read. Raised when that changes (the windows, a configuration, an
 * embedding model): the backfill workflow then writes every transcript's moments again.
 */
export const SEARCH_INDEX_VERSION = 1;

/**
 * A transcript's moments written for search, whole or not at all: one transaction removes the moments it had and
 * writes the new ones (one statement), each with its words read by its language's configuration, with accents
 * and with them folded (ACCENTED_CONFIG). Run again it
 * writes the same rows, so the job workflow's step may be retried after a worker died mid-way. A transcript
 * that is gone (deleted, purged) gets none. Returns how many moments it has.
 */
export async function indexTranscript(db: Db, transcriptId: string): Promise<number> {
  const t = await db.transcript.findUnique({
    where: { id: transcriptId },
    select: { workspaceId: true, language: true, segments: true, deletedAt: true },
  });
  if (!t || t.deletedAt) return 0;
  const moments = momentsOf(t.segments as unknown as Segment[], t.language);
  const column = <T>(pick: (m: (typeof moments)[number]) => T) => moments.map(pick);
  await db.$transaction([
    removeTranscriptMoments(db, transcriptId),
    db.$executeRaw`
    INSERT INTO transcript_moments (transcript_id, seq, workspace_id, start, "end", text, speaker, language, search_config, words)
    SELECT ${transcriptId}::uuid, m.seq, ${t.workspaceId}::uuid, m.start, m."end", m.text, m.speaker, m.language, m.cfg,
      CASE WHEN m.cfg = 'search_trigram' THEN ''::tsvector
        ELSE to_tsvector(m.accented::regconfig, m.text) || to_tsvector(m.cfg::regconfig, m.text) END
    FROM unnest(${column((m) => m.seq)}::int[], ${column((m) => m.start)}::float8[], ${column((m) => m.end)}::float8[],
      ${column((m) => m.text)}::text[], ${column((m) => m.speaker)}::text[], ${column((m) => m.language)}::text[],
      ${column((m) => m.searchConfig)}::text[], ${column((m) => (m.searchConfig === 'search_trigram' ? null : ACCENTED_CONFIG[m.searchConfig]))}::text[])
      AS m(seq, start, "end", text, speaker, language, cfg, accented)`,
    db.transcript.update({ where: { id: transcriptId }, data: { searchIndexVersion: SEARCH_INDEX_VERSION } }),
  ]);
  return moments.length;
}

/** The moments of a transcript, removed (its deletion hides it at once; the purge removes the row and, by cascade, them). */
export function removeTranscriptMoments(db: Db | Prisma.TransactionClient, transcriptId: string, workspaceId?: string) {
  // A PrismaPromise, so it can run inside a batch transaction.
  return db.transcriptMoment.deleteMany({ where: { transcriptId, ...(workspaceId ? { workspaceId } : {}) } });
}

/**
 * One step of the backfill: the next `limit` visible transcripts (by id, after `afterId`) whose moments are not of
 * this version, each indexed (indexTranscript: whole or not at all). `lastId` is where the next step goes on from;
 * null when none were left. Run again from the same `afterId`, it writes the same rows.
 */
export async function indexTranscriptsAfter(
  db: Db,
  afterId: string | null,
  limit: number,
  onEach: () => void = () => {},
): Promise<{ indexed: number; lastId: string | null }> {
  const ids = await db.transcript.findMany({
    where: {
      ...(afterId ? { id: { gt: afterId } } : {}),
      publishedAt: { not: null },
      deletedAt: null,
      OR: [{ searchIndexVersion: null }, { searchIndexVersion: { not: SEARCH_INDEX_VERSION } }],
    },
    select: { id: true },
    orderBy: { id: 'asc' },
    take: limit,
  });
  for (const { id } of ids) {
    await indexTranscript(db, id);
    onEach();
  }
  return { indexed: ids.length, lastId: ids.length > 0 ? ids[ids.length - 1]!.id : null };
}
