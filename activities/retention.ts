import type { Db } from '../domain/db';
import { settleStaleListenSessions } from '../domain/listen/sessions';
import { purgeExpiredKeptAudio } from '../domain/listen/kept-audio';
import type { StoredRedactedAudio } from '../domain/transcripts/redacted-audio';
import type { ObjectStore } from '../integrations/storage/object-store';

// Transcript purging: the deleted one right away, expired ones by the
// retention schedule. Reads already hide both, so purging is only about
// removing the stored text, and the redacted copy of the audio where one was made.

export function createRetentionActivities(db: Db, store: ObjectStore) {
  /** The objects first, then the rows: a purge cut short between the two finds the rows again and finishes. */
  async function deleteObjects(audio: Array<{ redactedAudio: unknown }>): Promise<void> {
    const keys = audio.map((t) => (t.redactedAudio as StoredRedactedAudio | null)?.key).filter((k): k is string => !!k);
    await Promise.all(keys.map((k) => store.delete(k)));
  }
  return {
    /** Removes a deleted transcript's row (text, segments, words) and its redacted audio. Idempotent. */
    async purgeTranscript(transcriptId: string): Promise<number> {
      const where = { id: transcriptId, deletedAt: { not: null } };
      await deleteObjects(await db.transcript.findMany({ where, select: { redactedAudio: true } }));
      const res = await db.transcript.deleteMany({ where });
      return res.count;
    },

    /** Removes transcripts past their retention window and unpublished leftovers of finished jobs, in bounded batches. */
    async purgeExpiredTranscripts(batchSize = 500): Promise<number> {
      const due = await db.$queryRaw<Array<{ id: string; redactedAudio: unknown }>>`
        SELECT t.id::text AS id, t.redacted_audio AS "redactedAudio" FROM transcripts t
        WHERE t.expires_at <= now() OR t.deleted_at IS NOT NULL
           OR (t.published_at IS NULL AND EXISTS (SELECT 1 FROM jobs j WHERE j.id = t.job_id AND j.status IN ('failed', 'cancelled')))
        LIMIT ${batchSize}`;
      if (due.length === 0) return 0;
      await deleteObjects(due);
      return db.$executeRaw`DELETE FROM transcripts WHERE id = ANY(${due.map((t) => t.id)}::uuid[])`;
    },

    /** Charges and closes the real-time streams whose API instance died mid-stream (their last reported audio). */
    async settleAbandonedListenSessions(): Promise<number> {
      return settleStaleListenSessions(db);
    },

    /** Removes the kept audio of streams past its retention or deleted (objects first, then the count). Idempotent. */
    async purgeExpiredKeptAudio(batchSize = 100): Promise<number> {
      return purgeExpiredKeptAudio(db, store, batchSize);
    },
  };
}
