import type { Db } from '../domain/db';
import { ServiceError } from '../core/errors';
import { CAPTION_CREDITS } from '../core/plans';
import type { CaptionSources } from '../integrations/platforms/types';
import { recordJobRetry, resolveJobSource, saveDraftTranscript } from '../domain/jobs/state';
import { checkCaptionLanguage } from '../domain/transcripts/caption-language';
import type { JobPlan } from '../workflows/definitions';
import { announceRetry, asActivity } from './failures';
import type { EntityTagger } from '../domain/transcripts/redaction';

/** Version of the processing pipeline, stored on every transcript. */
export const EXTRACTION_VERSION = 'captions-2026.11.1';

export function createCaptionActivities(db: Db, sources: CaptionSources, personalData: EntityTagger | null) {
  // A retry shows on the job's row (the API's `retry`) and in the workflow (the Temporal UI).
  const onRetry = (jobId: string) => async (err: ServiceError, attempt: number) => {
    await Promise.allSettled([recordJobRetry(db, jobId, attempt, err.toObject()), announceRetry(err)]);
  };

  return {
    /** resolve stage: share links become the video they point at (one video, one media_id). */
    async resolveSource(plan: JobPlan): Promise<{ mediaId: string }> {
      return asActivity(async () => {
        if (plan.platform !== 'shortvideo' || !plan.mediaId.startsWith('share:')) return { mediaId: plan.mediaId };
        const resolved = await sources.resolveShareLink('shortvideo', plan.sourceUrl!);
        await resolveJobSource(db, plan.jobId, resolved);
        return { mediaId: resolved.mediaId };
      }, onRetry(plan.jobId));
    },

    /**
     * captions stage: reads the chosen caption track and stores it as the
     * job's (unpublished) transcript. Upserts on the job id, so a retry
     * overwrites instead of duplicating.
     */
    async fetchCaptions(plan: JobPlan, mediaId: string): Promise<{ transcriptId: string; charge: number }> {
      return asActivity(async () => {
        if (plan.platform !== 'videosite' && plan.platform !== 'shortvideo') {
          throw new ServiceError('CAPABILITY_UNAVAILABLE', 'mode', { message: `${plan.platform} sources have no captions.` });
        }
        const result = await sources.fetchCaptions(plan.platform, mediaId, {
          captionLanguages: plan.spec.caption_languages,
          captionPreference: plan.spec.caption_preference,
        });
        // The label is a claim: when the text is surely in another language, the transcript says so.
        const check = checkCaptionLanguage(
          result.language,
          result.segments.map((s) => s.text),
        );
        const transcriptId = await saveDraftTranscript(
          db,
          plan.jobId,
          {
            title: result.title,
            sourceOrigin: result.sourceOrigin,
            language: check.matches === false ? check.detected : result.language,
            captionLanguageCheck: check,
            text: result.segments.map((s) => s.text).join(' '),
            segments: result.segments,
            words: null,
            timingGranularity: result.segments.length > 0 ? 'segment' : 'none',
            durationSeconds: result.durationSeconds,
            recognition: null,
            extractionVersion: EXTRACTION_VERSION,
          },
          personalData,
        );
        // The price of a caption transcript, decided here rather than in workflow code.
        return { transcriptId, charge: CAPTION_CREDITS };
      }, onRetry(plan.jobId));
    },
  };
}
