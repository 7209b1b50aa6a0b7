import fs from 'node:fs/promises';
import path from 'node:path';
import { log } from '@temporalio/activity';
import { ServiceError } from '../core/errors';
import type { Db } from '../domain/db';
import { saveTranscriptTranslation } from '../domain/jobs/state';
import { textsByTime, translationRoute, type StoredTranslation, type TranslationSettings } from '../domain/transcripts/translation';
import type { CaptionSources } from '../integrations/platforms/types';
import { primaryLanguage } from '../integrations/recognizers/types';
import type { ObjectStore } from '../integrations/storage';
import type { TextTranslator } from '../integrations/translation/types';
import type { JobPlan } from '../workflows/definitions';
import { asActivity } from './failures';
import { whileHeartbeating } from './heartbeat';
import { workKey } from './transcription';
import { withScratchDir } from '../integrations/scratch';

// `translate_to` (workflows/job.ts): the draft transcript's translation, from the first route that reaches the
// target: the platform's own translated track, the operator's provider (here, over HTTP) or the machine model (in
// the recognition workers: this writes its request, `translateTexts` answers in the object store, the second
// activity stores the answer).

export interface TranslationDeps {
  db: Db;
  store: ObjectStore;
  sources: Pick<CaptionSources, 'fetchTranslatedCaptions'>;
  settings: TranslationSettings;
  /** The operator's provider; null when none is configured. */
  provider: TextTranslator | null;
}

/** Where the machine translation's request goes (recognizer/worker.py reads it; its answer is translationResultKey). */
export const translationRequestKey = (jobId: string) => workKey(jobId, 'translation-request.json');

type Segments = Array<{ start: number; end: number; text: string }>;

export function createTranslationActivities(deps: TranslationDeps) {
  const { db, store, sources, settings, provider } = deps;

  async function draft(transcriptId: string) {
    const t = await db.transcript.findUnique({
      where: { id: transcriptId },
      select: { platform: true, mediaId: true, language: true, sourceOrigin: true, segments: true },
    });
    if (!t) throw new ServiceError('NOT_FOUND', 'transcript', { message: `Transcript ${transcriptId} is gone.` });
    return { ...t, segments: t.segments as Segments };
  }

  /**
   * The platform's translation of the caption track the job read, or null when it has none to give now: like a
   * video's chapters, an extra beside a transcript already made, so a failed answer falls to the other routes.
   */
  async function platformTranslation(plan: JobPlan, t: Awaited<ReturnType<typeof draft>>, target: string): Promise<string[] | null> {
    if (t.sourceOrigin !== 'creator_captions' && t.sourceOrigin !== 'platform_captions') return null;
    try {
      const translated = await sources.fetchTranslatedCaptions(t.platform, t.mediaId, {
        captionLanguages: plan.spec.caption_languages,
        captionPreference: plan.spec.caption_preference,
        translateTo: target,
      });
      if (!translated || translated.segments.length === 0) return null;
      return textsByTime(t.segments, translated.segments);
    } catch (err) {
      log.warn('platform translation unavailable: trying the other routes', {
        platform: t.platform,
        mediaId: t.mediaId,
        error: String(err),
      });
      return null;
    }
  }

  return {
    /**
     * Translates the draft transcript where the platform or the provider can, writing it; for the machine model
     * writes its request and returns its key. Run again, it does the same.
     */
    async translateTranscript(
      plan: JobPlan,
      transcriptId: string,
    ): Promise<{ origin: StoredTranslation['origin']; requestKey: string | null }> {
      return asActivity(() =>
        whileHeartbeating(async () => {
          const target = plan.spec.translate_to;
          if (!target) throw new ServiceError('INVALID_REQUEST', 'translate_to', { message: 'The job asked for no translation.' });
          const t = await draft(transcriptId);
          const own = await platformTranslation(plan, t, target);
          if (own) {
            await saveTranscriptTranslation(db, transcriptId, { language: target, origin: 'platform', texts: own });
            return { origin: 'platform', requestKey: null };
          }
          const route = t.language ? translationRoute(t.language, target, settings) : provider ? 'provider' : null;
          if (route === null || (route === 'provider' && !provider))
            throw new ServiceError('TRANSLATION_UNAVAILABLE', 'translate_to', {
              message: `No translation route reaches ${target} from ${t.language ?? 'an unknown language'} on this deployment.`,
            });
          const texts = t.segments.map((s) => s.text);
          if (route === 'provider') {
            const translated = await provider!.translate(texts, t.language, target);
            await saveTranscriptTranslation(db, transcriptId, { language: target, origin: 'provider', texts: translated });
            return { origin: 'provider', requestKey: null };
          }
          const key = translationRequestKey(plan.jobId);
          const direction = `${primaryLanguage(t.language!)}-${primaryLanguage(target)}`;
          await store.put(key, Buffer.from(JSON.stringify({ direction, texts }), 'utf8'), 'application/json');
          return { origin: 'machine', requestKey: key };
        }),
      );
    },

    /** Stores the machine translation the recognition worker wrote, then drops its request and answer. */
    async saveMachineTranslation(plan: JobPlan, transcriptId: string, resultKey: string): Promise<{ texts: number }> {
      return asActivity(() =>
        whileHeartbeating(async () => {
          const target = plan.spec.translate_to!;
          const t = await draft(transcriptId);
          const answer = await withScratchDir('job-', async (dir) => {
            const file = path.join(dir, 'translation.json');
            await store.download(resultKey, file);
            return JSON.parse(await fs.readFile(file, 'utf8')) as { texts?: unknown };
          });
          if (!Array.isArray(answer.texts) || answer.texts.some((x) => typeof x !== 'string') || answer.texts.length !== t.segments.length)
            throw new ServiceError('PROVIDER_UNAVAILABLE', 'translation', {
              message: `The machine translation's answer does not hold one text for each of the ${t.segments.length} segments.`,
            });
          const texts = answer.texts as string[];
          await saveTranscriptTranslation(db, transcriptId, { language: target, origin: 'machine', texts });
          await Promise.allSettled([store.delete(translationRequestKey(plan.jobId)), store.delete(resultKey)]);
          return { texts: texts.length };
        }),
      );
    },
  };
}

export type TranslationActivities = ReturnType<typeof createTranslationActivities>;

/** The recognition workers' machine translation (recognizer/worker.py), called by name on their queue. */
export interface MachineTranslationActivities {
  translateTexts(plan: JobPlan, requestKey: string): Promise<string>;
}
