import { log } from '@temporalio/activity';
import { ServiceError } from '../core/errors';
import type { Db } from '../domain/db';
import { saveTranscriptChapters } from '../domain/jobs/state';
import { computeChapters, platformChapters, type Chapter } from '../domain/transcripts/chapters';
import type { TextEmbedder } from '../integrations/embeddings/e5';
import type { CaptionSources } from '../integrations/platforms/types';
import { asActivity } from './failures';
import { whileHeartbeating } from './heartbeat';

// `chapters: true` (workflows/job.ts): the draft transcript's chapters, on the embedding workers' queue where the
// sentence embedding model is loaded (worker/main.ts).

export function createChapterActivities(deps: { db: Db; embedder: TextEmbedder; sources: Pick<CaptionSources, 'fetchChapters'> }) {
  const { db, embedder, sources } = deps;
  return {
    /**
     * The video's own chapters where the platform has them, else chapters computed from the transcript's segments;
     * written onto the draft transcript with its rendering. Run again, the same chapters are written.
     */
    async writeTranscriptChapters(transcriptId: string): Promise<{ chapters: number; origin: Chapter['origin'] | null }> {
      return asActivity(() =>
        whileHeartbeating(async () => {
          const t = await db.transcript.findUnique({
            where: { id: transcriptId },
            select: { platform: true, mediaId: true, segments: true, durationSeconds: true },
          });
          if (!t) throw new ServiceError('NOT_FOUND', 'transcript', { message: `Transcript ${transcriptId} is gone.` });
          const segments = t.segments as Array<{ start: number; end: number; text: string }>;
          const duration = t.durationSeconds ?? segments.at(-1)?.end ?? null;
          let chapters = platformChapters(await ownChapters(t.platform, t.mediaId), duration);
          if (chapters.length === 0) chapters = await computeChapters(segments, duration, (texts) => embedder.embedPassages(texts));
          await saveTranscriptChapters(db, transcriptId, chapters);
          return { chapters: chapters.length, origin: chapters[0]?.origin ?? null };
        }),
      );
    },
  };

  /**
   * The platform's chapters, or none when it cannot give them now: they are an extra beside a transcript that is
   * already made, so a `next` answer that fails (throttled, changed, gone) gets computed chapters rather than a
   * job held up by retries or failed.
   */
  async function ownChapters(platform: string, mediaId: string): Promise<Array<{ start: number; title: string }>> {
    try {
      return await sources.fetchChapters(platform, mediaId);
    } catch (err) {
      log.warn('platform chapters unavailable: computing them', { platform, mediaId, error: String(err) });
      return [];
    }
  }
}

export type ChapterActivities = ReturnType<typeof createChapterActivities>;
