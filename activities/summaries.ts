import { log } from '@temporalio/activity';
import { ServiceError } from '../core/errors';
import type { Db } from '../domain/db';
import { saveTranscriptSummary } from '../domain/jobs/state';
import type { Chapter } from '../domain/transcripts/chapters';
import { summarizeTranscript } from '../domain/transcripts/summary';
import type { ChatModel } from '../integrations/llm/chat-completions';
import { asActivity } from './failures';
import { currentActivity, whileHeartbeating } from './heartbeat';

// `summarize` (workflows/job.ts): on the summary workers' queue (SUMMARY_TASK_QUEUE), apart from recognition, so
// the language model scales by its own workers (worker/main.ts serves the queue where LLM_BASE_URL is set).

export function createSummaryActivities(deps: { db: Db; llm: ChatModel }) {
  const { db, llm } = deps;
  return {
    /**
     * The draft transcript's summary, written onto it with its rendering. Run again, the model is asked again at
     * temperature 0 and the same summary is written.
     */
    async writeTranscriptSummary(
      transcriptId: string,
    ): Promise<{ keyPoints: number; dropped: number; promptWords: number; words: number }> {
      return asActivity(() =>
        whileHeartbeating(async () => {
          const t = await db.transcript.findUnique({
            where: { id: transcriptId },
            select: { segments: true, chapters: true, language: true },
          });
          if (!t) throw new ServiceError('NOT_FOUND', 'transcript', { message: `Transcript ${transcriptId} is gone.` });
          const segments = t.segments as Array<{ start: number; text: string }>;
          const outcome = await summarizeTranscript(
            { segments, chapters: (t.chapters as Chapter[] | null) ?? [], language: t.language },
            llm,
            currentActivity()?.cancellationSignal,
          );
          if (outcome.dropped > 0)
            log.info('summary sentences dropped: they name what the transcript does not', {
              transcriptId,
              dropped: outcome.dropped,
              written: outcome.written,
            });
          await saveTranscriptSummary(db, transcriptId, outcome.summary);
          return {
            keyPoints: outcome.summary.key_points.length,
            dropped: outcome.dropped,
            promptWords: outcome.promptWords,
            words: outcome.words,
          };
        }),
      );
    },
  };
}

export type SummaryActivities = ReturnType<typeof createSummaryActivities>;
