import type { Db } from '../domain/db';

// Transcript purging: the deleted one right away, expired ones by the
// retention schedule. Reads already hide both, so purging is only about
// removing the stored text.

export function createRetentionActivities(db: Db) {
  return {
    /** Removes a deleted transcript's row (text, segments, words). Idempotent. */
    async purgeTranscript(transcriptId: string): Promise<number> {
      const res = await db.transcript.deleteMany({ where: { id: transcriptId, deletedAt: { not: null } } });
      return res.count;
    },

    /** Removes transcripts past their retention window and unpublished leftovers of finished jobs, in bounded batches. */
    async purgeExpiredTranscripts(batchSize = 500): Promise<number> {
      const expired = await db.$executeRaw`
        DELETE FROM transcripts WHERE id IN (
          SELECT t.id FROM transcripts t
          WHERE t.expires_at <= now() OR t.deleted_at IS NOT NULL
             OR (t.published_at IS NULL AND EXISTS (SELECT 1 FROM jobs j WHERE j.id = t.job_id AND j.status IN ('failed', 'cancelled')))
          LIMIT ${batchSize})`;
      return expired;
    },
  };
}
