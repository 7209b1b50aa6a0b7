import fs from 'node:fs/promises';
import path from 'node:path';
import { fromJsonColumn, type Db } from '../domain/db';
import { ServiceError } from '../core/errors';
import { saveCaptionAlignment, saveDraftTranscript } from '../domain/jobs/state';
import {
  alignedCaptions,
  alignedText,
  AlignmentResultSchema,
  captionAlignmentRequest,
  type AlignmentRequest,
  type AlignmentResult,
} from '../domain/transcripts/alignment';
import type { Segment } from '../core/timing';
import { spokenSeconds } from '../integrations/recognizers/result';
import { resolveLanguage, type Recognizer } from '../integrations/recognizers/types';
import type { ObjectStore } from '../integrations/storage';
import type { JobPlan } from '../workflows/definitions';
import { asActivity } from './failures';
import { cleanupWork, workKey } from './transcription';
import { withScratchDir } from '../integrations/scratch';
import type { EntityTagger } from '../domain/transcripts/redaction';

// Forced alignment, around the recognition worker's `alignAudio`
// (recognizer/worker.py): these write what it is asked and store what it
// answers. The audio is acquired by acquireAudio as for AI transcription.

export const ALIGNMENT_EXTRACTION_VERSION = 'align-2026.11.1';

export interface AlignmentDeps {
  db: Db;
  store: ObjectStore;
  /** The recognizer's languages decide whether a caption track can be aligned. */
  recognizer: Recognizer;
  /** The personal-data model (redact_pii_types person, address, id), or null. */
  personalData: EntityTagger | null;
}

const requestKey = (jobId: string) => workKey(jobId, 'align-request.json');

async function readResult(store: ObjectStore, key: string): Promise<AlignmentResult> {
  return withScratchDir('job-', async (dir) => {
    const file = path.join(dir, 'alignment.json');
    await store.download(key, file);
    return AlignmentResultSchema.parse(JSON.parse(await fs.readFile(file, 'utf8')));
  });
}

const cleanup = (store: ObjectStore, jobId: string, alignmentKey: string) =>
  cleanupWork(store, jobId, 0, [requestKey(jobId), alignmentKey]);

export function createAlignmentActivities(deps: AlignmentDeps) {
  const { db, store } = deps;
  const put = (jobId: string, request: AlignmentRequest) =>
    store.put(requestKey(jobId), Buffer.from(JSON.stringify(request)), 'application/json').then(() => requestKey(jobId));

  return {
    /**
     * word_timing: the draft caption transcript's cues, written for the recognition worker. Null when
     * there is nothing to align, or the track's language is one the recognizer does not know: the
     * transcript then stays as the captions gave it (timed by segment), and no audio is fetched.
     */
    async prepareCaptionAlignment(plan: JobPlan, transcriptId: string): Promise<{ requestKey: string } | null> {
      return asActivity(async () => {
        const t = await db.transcript.findUniqueOrThrow({ where: { id: transcriptId }, select: { language: true, segments: true } });
        const segments = fromJsonColumn<Segment[]>(t.segments);
        let language: string | undefined;
        try {
          language = resolveLanguage(deps.recognizer, t.language);
        } catch (err) {
          if (err instanceof ServiceError && err.code === 'LANGUAGE_UNSUPPORTED') return null;
          throw err;
        }
        if (!language || segments.every((s) => s.text.trim() === '')) return null;
        return { requestKey: await put(plan.jobId, captionAlignmentRequest(language, segments)) };
      });
    },

    /** align_text: the job's text (job_texts), written for the recognition worker. */
    async prepareTextAlignment(plan: JobPlan): Promise<{ requestKey: string }> {
      return asActivity(async () => {
        const { text } = await db.jobText.findUniqueOrThrow({ where: { jobId: plan.jobId } });
        const language = resolveLanguage(deps.recognizer, plan.spec.language) ?? null;
        return { requestKey: await put(plan.jobId, { kind: 'text', language, text }) };
      });
    },

    /** word_timing: the caption transcript gains the aligned words and each cue its match; the work files go. */
    async storeCaptionAlignment(plan: JobPlan, transcriptId: string, alignmentKey: string): Promise<void> {
      return asActivity(async () => {
        const t = await db.transcript.findUniqueOrThrow({ where: { id: transcriptId }, select: { segments: true, alignment: true } });
        // An attempt that stored the alignment and lost its worker before answering did the work (its file may be gone).
        if (t.alignment !== null) return cleanup(store, plan.jobId, alignmentKey);
        const aligned = alignedCaptions(fromJsonColumn<Segment[]>(t.segments), await readResult(store, alignmentKey));
        await saveCaptionAlignment(db, plan.jobId, transcriptId, aligned, deps.personalData);
        await cleanup(store, plan.jobId, alignmentKey);
      });
    },

    /** align_text: the transcript is the job's own text, by sentence, with the aligned words. */
    async storeTextAlignment(plan: JobPlan, alignmentKey: string, durationMs: number): Promise<{ transcriptId: string }> {
      return asActivity(async () => {
        // As above: a stored alignment is not done again.
        const done = await db.transcript.findUnique({ where: { jobId: plan.jobId }, select: { id: true, alignment: true } });
        if (done && done.alignment !== null) {
          await cleanup(store, plan.jobId, alignmentKey);
          return { transcriptId: done.id };
        }
        const { text } = await db.jobText.findUniqueOrThrow({ where: { jobId: plan.jobId } });
        const aligned = alignedText(await readResult(store, alignmentKey));
        const transcriptId = await saveDraftTranscript(
          db,
          plan.jobId,
          {
            title: null,
            sourceOrigin: 'provided_text',
            language: aligned.language,
            text: text.trim(),
            segments: aligned.segments,
            words: aligned.words,
            timingGranularity: 'word',
            durationSeconds: durationMs / 1000,
            languages: [{ language: aligned.language, seconds: spokenSeconds(aligned.segments) }],
            recognition: null,
            alignment: aligned.alignment,
            extractionVersion: ALIGNMENT_EXTRACTION_VERSION,
          },
          deps.personalData,
        );
        await cleanup(store, plan.jobId, alignmentKey);
        return { transcriptId };
      });
    },
  };
}
