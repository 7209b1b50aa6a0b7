import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../domain/db';
import { ServiceError } from '../core/errors';
import {
  awaitProvider,
  markAsrStarted,
  measuredDuration,
  providerJobIdOf,
  recordJobRetry,
  recordMediaMeasured,
  reserveTranscriptionCredits,
  saveDraftTranscript,
  saveTranscriptRedactedAudio,
} from '../domain/jobs/state';
import type { JobPlan } from '../workflows/definitions';
import { announceRetry, asActivity } from './failures';
import { savedProgress, saveProgress } from './heartbeat';
import { safeFetch, type AddressPolicy } from '../integrations/fetch';
import { toOggOpus, toRecognizerWav } from '../integrations/media/convert';
import {
  overlayTone,
  REDACTED_AUDIO_CONTENT_TYPE,
  redactedAudioKey,
  toneSpans,
  type StoredRedactedAudio,
} from '../domain/transcripts/redacted-audio';
import { probeMedia } from '../integrations/media/probe';
import { partialSegmentsOf, publishPieceSegments } from '../domain/jobs/partial-segments';
import { specOfJob } from '../domain/jobs/spec';
import {
  DEFAULT_MAX_PIECE_MS,
  findSilences,
  nextCut,
  splitAtSilences,
  stitch,
  type Piece,
  type RecognizedPiece,
} from '../integrations/media/split';
import type { AssemblyAiRecognizer } from '../integrations/recognizers/cloud';
import { qualityStatus, type RecognitionResult, type Recognizer } from '../integrations/recognizers/types';
import { speakerSummary, spokenSeconds } from '../integrations/recognizers/result';
import { finishWhisperPiece, pieceResult, SpeakerLabelsSchema, WhisperRecognizer, withSpeakers } from '../integrations/recognizers/whisper';
import type { ObjectStore } from '../integrations/storage';
import { withScratchDir } from '../integrations/scratch';
import type { EntityTagger } from '../domain/transcripts/redaction';

// AI transcription, one small activity per step. Audio and per-piece results
// travel through object storage (never through workflow history), so every
// step can run on any worker. Recognising a piece is not here: the Python
// recognition worker (recognizer/) serves it on its own task queue
// (activities/recognition.ts) and stores each piece's result for
// storeRecognition.

export const ASR_EXTRACTION_VERSION = 'asr-2026.11.2';

/** Downloads the audio of a videosite/shortvideo video (yt-dlp behind the outbound settings). */
export type PlatformAudioDownloader = (
  url: string,
  platform: 'videosite' | 'shortvideo',
  toDir: string,
) => Promise<{ file: string; title: string | null }>;

export interface TranscriptionDeps {
  db: Db;
  store: ObjectStore;
  /** The embedded recognizer as configured (its model's name and languages) and, when configured, the cloud one. */
  recognizer: Recognizer;
  cloud?: AssemblyAiRecognizer | null;
  /** Task queue of the recognition workers, handed to the workflow in the job's plan (RECOGNITION_TASK_QUEUE). */
  recognitionTaskQueue?: string;
  /** Where the cloud provider calls back (our ingress). */
  callbackUrl?: string | null;
  directLinkPolicy: AddressPolicy & { caForTests?: string };
  downloadPlatformAudio?: PlatformAudioDownloader;
  /** Longest piece recognised as one (long media is cut at pauses). */
  maxPieceMs?: number;
  /** The personal-data model (redact_pii_types person, address, id), or null. */
  personalData: EntityTagger | null;
}

export const workKey = (jobId: string, name: string) => `work/${jobId}/${name}`;

export function createTranscriptionActivities(deps: TranscriptionDeps) {
  const { db, store } = deps;
  // A retry shows on the job's row (the API's `retry`) and in the workflow (the Temporal UI).
  const onRetry = (jobId: string) => async (err: ServiceError, attempt: number) => {
    await Promise.allSettled([recordJobRetry(db, jobId, attempt, err.toObject()), announceRetry(err)]);
  };

  /** An upload's file from the store, or a direct link fetched again through the outbound rules, into `dir`. */
  async function fetchStoredOrLinkedMedia(plan: JobPlan, dir: string): Promise<string> {
    if (plan.platform === 'upload') {
      const upload = await db.upload.findUniqueOrThrow({ where: { id: plan.mediaId } });
      const media = path.join(dir, 'media');
      await store.download(upload.objectKey, media);
      return media;
    }
    return (await safeFetch(plan.sourceUrl!, { toFile: path.join(dir, 'media'), ...deps.directLinkPolicy })).file;
  }

  return {
    /**
     * `redacted_audio`: the source's audio again (the upload, or the direct link fetched again), 16 kHz mono as the
     * recognizer heard it, a tone over every redacted word of the stored transcript, encoded as Ogg Opus and stored
     * beside the transcript. Run again, it finds the copy the transcript names and does nothing.
     */
    async writeRedactedAudio(plan: JobPlan, transcriptId: string): Promise<{ toneSpans: number; bytes: number }> {
      return asActivity(
        () =>
          withScratchDir('job-', async (dir) => {
            const t = await db.transcript.findUniqueOrThrow({ where: { id: transcriptId }, select: { words: true, redactedAudio: true } });
            const done = t.redactedAudio as StoredRedactedAudio | null;
            if (done && (await store.stat(done.key))) return { toneSpans: done.tone_spans, bytes: done.bytes };
            const wav = await toRecognizerWav(await fetchStoredOrLinkedMedia(plan, dir), path.join(dir, 'audio.wav'));
            const bytes = await fs.readFile(wav);
            // A plain 44-byte header (toRecognizerWav), then 16-bit little-endian samples.
            const samples = new Int16Array(bytes.buffer, bytes.byteOffset + 44, (bytes.length - 44) >> 1);
            const spans = toneSpans((t.words ?? []) as Array<{ start: number; end: number; text: string }>, samples.length / 16000);
            overlayTone(samples, 16000, spans);
            await fs.writeFile(wav, bytes);
            const ogg = await toOggOpus(wav, path.join(dir, 'redacted.ogg'));
            const key = redactedAudioKey(transcriptId);
            await store.put(key, ogg, REDACTED_AUDIO_CONTENT_TYPE);
            const size = (await fs.stat(ogg)).size;
            await saveTranscriptRedactedAudio(db, transcriptId, {
              key,
              bytes: size,
              content_type: REDACTED_AUDIO_CONTENT_TYPE,
              tone_spans: spans.length,
            });
            return { toneSpans: spans.length, bytes: size };
          }),
        onRetry(plan.jobId),
      );
    },

    /** acquire_audio: fetches the media, measures it, and stores 16 kHz mono audio for the recognizer. */
    async acquireAudio(plan: JobPlan): Promise<{ audioKey: string; durationMs: number }> {
      return asActivity(
        () =>
          withScratchDir('job-', async (dir) => {
            const audioKey = workKey(plan.jobId, 'audio.wav');
            // A previous attempt that stored the audio and its length (then lost its worker) did the work already.
            const measured = await measuredDuration(db, plan.jobId);
            if (measured !== null && (await store.stat(audioKey))) return { audioKey, durationMs: measured };
            let media: string;
            let title: string | null = null;
            if (plan.platform === 'upload' || plan.platform === 'direct') {
              media = await fetchStoredOrLinkedMedia(plan, dir);
            } else if ((plan.platform === 'videosite' || plan.platform === 'shortvideo') && deps.downloadPlatformAudio) {
              const got = await deps.downloadPlatformAudio(plan.canonicalUrl ?? plan.sourceUrl!, plan.platform, dir);
              media = got.file;
              title = got.title;
            } else {
              throw new ServiceError('CAPABILITY_UNAVAILABLE', 'mode', {
                message: `Audio of ${plan.platform} sources cannot be fetched here.`,
              });
            }
            const info = await probeMedia(media);
            const wav = await toRecognizerWav(media, path.join(dir, 'audio.wav'));
            await store.put(audioKey, wav, 'audio/wav');
            await recordMediaMeasured(db, plan.jobId, { durationMs: info.durationMs, title });
            return { audioKey, durationMs: info.durationMs };
          }),
        onRetry(plan.jobId),
      );
    },

    /** The price before anything is charged, capped by max_credits (domain/jobs/state.ts). */
    async reserveTranscriptionCredits(
      plan: JobPlan,
      durationMs: number,
      opts: { wordTimedCaptions?: boolean } = {},
    ): Promise<{ cost: number }> {
      return asActivity(() => reserveTranscriptionCredits(db, plan.jobId, durationMs, opts));
    },

    /** From here on a cancel is refused: the audio goes to a recognizer. */
    async markAsrStarted(jobId: string): Promise<void> {
      await markAsrStarted(db, jobId);
    },

    /**
     * The first piece of a long upload, cut from the first seconds of the file alone, so that its recognition starts
     * while acquireAudio still converts the whole recording (the first words of a two-hour upload in seconds, not
     * after minutes of conversion). The cut is where cutAudio will put it (nextCut over the pauses of the stretch
     * up to it, which is all it looks at); the piece's samples are hashed, and the workflow takes its result for
     * piece 0 only when cutAudio's piece 0 has the same samples: the transcript never depends on this. Also answers
     * the media's length as acquireAudio measures it (the same probe of the same file), to price the job. No piece
     * for media short enough to be one piece.
     */
    async cutLeadingPiece(plan: JobPlan): Promise<{ durationMs: number; lead: { piece: Piece; key: string; sha256: string } | null }> {
      return asActivity(
        () =>
          withScratchDir('job-', async (dir) => {
            const media = await fetchStoredOrLinkedMedia(plan, dir);
            const { durationMs } = await probeMedia(media);
            const maxPieceMs = deps.maxPieceMs ?? DEFAULT_MAX_PIECE_MS;
            if (durationMs <= maxPieceMs) return { durationMs, lead: null };
            // A little past the last possible cut: a pause running over it is seen as far as the cut looks.
            const stretchMs = Math.min(durationMs, maxPieceMs + 2000);
            const stretch = await toRecognizerWav(media, path.join(dir, 'stretch.wav'), { durationMs: stretchMs });
            const silences = await findSilences(stretch, { durationMs: stretchMs });
            const piece = { startMs: 0, endMs: nextCut(0, silences, maxPieceMs, maxPieceMs / 2) };
            const wav = await toRecognizerWav(stretch, path.join(dir, 'lead.wav'), { startMs: 0, durationMs: piece.endMs });
            const key = workKey(plan.jobId, 'lead-piece.wav');
            await store.put(key, wav, 'audio/wav');
            return { durationMs, lead: { piece, key, sha256: await sha256File(wav) } };
          }),
        onRetry(plan.jobId),
      );
    },

    /**
     * Cuts long audio at pauses into pieces stored separately, so each is recognised by its own activity. Answers
     * also the hash of piece 0's samples (compared with cutLeadingPiece's).
     */
    async cutAudio(
      plan: JobPlan,
      audioKey: string,
      durationMs: number,
    ): Promise<{ pieces: Piece[]; keys: string[]; firstPieceSha256: string }> {
      return asActivity(() =>
        withScratchDir('job-', async (dir) => {
          const wav = path.join(dir, 'audio.wav');
          await store.download(audioKey, wav);
          const pieces = await splitAtSilences(wav, { durationMs, maxPieceMs: deps.maxPieceMs });
          if (pieces.length === 1) return { pieces, keys: [audioKey], firstPieceSha256: '' };
          const keys: string[] = [];
          // Pieces a previous attempt stored before its worker was lost are not cut again (the cut points are the same).
          const alreadyStored = savedProgress<{ piecesStored: number; firstPieceSha256?: string }>();
          let firstPieceSha256 = alreadyStored?.firstPieceSha256 ?? '';
          for (const [i, p] of pieces.entries()) {
            const key = workKey(plan.jobId, `piece-${i}.wav`);
            keys.push(key);
            if (i < (alreadyStored?.piecesStored ?? 0)) continue;
            const out = await toRecognizerWav(wav, path.join(dir, `piece-${i}.wav`), {
              startMs: p.startMs,
              durationMs: p.endMs - p.startMs,
            });
            if (i === 0) firstPieceSha256 = await sha256File(out);
            await store.put(key, out, 'audio/wav');
            saveProgress({ piecesStored: i + 1, firstPieceSha256 });
          }
          return { pieces, keys, firstPieceSha256 };
        }),
      );
    },

    /**
     * Puts the pieces back together with continuous timing and stores the (unpublished) transcript; with
     * `speakersKey` (labelSpeakers' file), every word gets its speaker first.
     */
    async storeRecognition(
      plan: JobPlan,
      resultKeys: string[],
      pieces: Piece[],
      durationMs: number,
      speakersKey?: string | null,
    ): Promise<{ transcriptId: string }> {
      return asActivity(() =>
        withScratchDir('job-', async (dir) => {
          // An attempt that stored the transcript and removed the work files, then lost its answer (a worker
          // killed, Temporal unreachable while PostgreSQL restarted), did the work: the next attempt finds it.
          const stored = await db.transcript.findUnique({ where: { jobId: plan.jobId }, select: { id: true, sourceOrigin: true } });
          if (stored?.sourceOrigin === 'speech_recognition') {
            await cleanupWork(store, plan.jobId, resultKeys.length, [speakersKey, workKey(plan.jobId, 'lead-piece.wav')]);
            return { transcriptId: stored.id };
          }
          const recognized: RecognizedPiece[] = [];
          const probabilities: { language: string | null; p: number | null; words: number }[] = [];
          let model = deps.recognizer.model;
          let speakers: string[][] | undefined;
          if (speakersKey) {
            const file = path.join(dir, 'speakers.json');
            await store.download(speakersKey, file);
            speakers = SpeakerLabelsSchema.parse(JSON.parse(await fs.readFile(file, 'utf8'))).pieces;
          }
          for (const [i, key] of resultKeys.entries()) {
            const file = path.join(dir, `r${i}.json`);
            await store.download(key, file);
            const piece = finishWhisperPiece(withSpeakers(JSON.parse(await fs.readFile(file, 'utf8')), speakers?.[i]));
            model = piece.model;
            recognized.push({ startMs: pieces[i]!.startMs, result: pieceResult(piece) });
            probabilities.push({ language: piece.result.language, p: piece.languageProbability, words: piece.result.words.length });
          }
          const result = stitch(recognized);
          // The model the recognition worker ran decides the quality status (its measurements, quality.ts).
          const transcriptId = await writeTranscript(db, plan, new WhisperRecognizer(model), result, durationMs, deps.personalData, {
            languageProbability: plan.spec.language ? null : detectedProbability(result.language, probabilities),
          });
          await cleanupWork(store, plan.jobId, resultKeys.length, [speakersKey, workKey(plan.jobId, 'lead-piece.wav')]);
          return { transcriptId };
        }),
      );
    },

    /**
     * A growing transcript: piece `index` (recognised, its raw result at `resultKey`) published as the job's next
     * segments, in the recording's time, cleaned and redacted as the job asked (domain/jobs/partial-segments.ts).
     * The workflow calls it in piece order. Idempotent: a piece already published is not published again.
     */
    async publishPieceSegments(plan: JobPlan, index: number, resultKey: string, piece: Piece): Promise<{ published: number }> {
      return asActivity(() =>
        withScratchDir('job-', async (dir) => {
          const job = await db.job.findUniqueOrThrow({ where: { id: plan.jobId } });
          if (job.transcribedMs >= piece.endMs) return { published: 0 };
          const file = path.join(dir, 'result.json');
          await store.download(resultKey, file);
          const { result } = finishWhisperPiece(JSON.parse(await fs.readFile(file, 'utf8')));
          // The same offsets and rounding as the transcript's own stitch.
          const placed = result.words.length === 0 ? null : stitch([{ startMs: piece.startMs, result }]);
          const segments = placed ? await partialSegmentsOf(specOfJob(job), placed, deps.personalData) : [];
          // Names that cannot be redacted in this language: the job will fail at the end; nothing is shown meanwhile.
          if (segments === null) return { published: 0 };
          return publishPieceSegments(db, plan.jobId, index, piece.endMs, segments);
        }),
      );
    },

    /** Cloud recognizer: uploads the audio and creates the provider's transcript, with our callback URL. */
    async submitToProvider(plan: JobPlan, audioKey: string): Promise<string> {
      const cloud = deps.cloud;
      if (!cloud) throw new Error('no cloud recognizer configured');
      return asActivity(
        () =>
          withScratchDir('job-', async (dir) => {
            const existing = await providerJobIdOf(db, plan.jobId);
            if (existing) return existing;
            const wav = path.join(dir, 'audio.wav');
            await store.download(audioKey, wav);
            const providerJobId = await cloud.submit(wav, {
              language: plan.spec.language ?? undefined,
              webhookUrl: deps.callbackUrl ?? undefined,
              speakerLabels: plan.spec.speaker_labels,
              speakersExpected: plan.spec.speakers_expected,
              vocabulary: plan.spec.vocabulary,
            });
            await awaitProvider(db, plan.jobId, providerJobId);
            return providerJobId;
          }),
        onRetry(plan.jobId),
      );
    },

    /** Cloud recognizer: the result once ready (stored as the job's transcript), or 'pending'. */
    async fetchProviderResult(plan: JobPlan, providerJobId: string, durationMs: number): Promise<{ transcriptId: string } | 'pending'> {
      const cloud = deps.cloud;
      if (!cloud) throw new Error('no cloud recognizer configured');
      return asActivity(async () => {
        const result = await cloud.fetchResult(providerJobId);
        if (result === 'pending') return 'pending';
        const transcriptId = await writeTranscript(db, plan, cloud, result, durationMs, deps.personalData);
        await cleanupWork(store, plan.jobId, 0);
        return { transcriptId };
      }, onRetry(plan.jobId));
    },
  };
}

/** Hex sha256 of a file's bytes (a piece's wav: its header is fixed, so equal hashes are equal samples). */
async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The probability of the detected language over the pieces that heard it, weighted by their words. */
function detectedProbability(
  language: string | null,
  pieces: { language: string | null; p: number | null; words: number }[],
): number | null {
  const heard = pieces.filter((x) => x.language === language && x.p !== null && x.words > 0);
  const words = heard.reduce((n, x) => n + x.words, 0);
  if (language === null || words === 0) return null;
  return Math.round((heard.reduce((sum, x) => sum + x.p! * x.words, 0) / words) * 10_000) / 10_000;
}

async function writeTranscript(
  db: Db,
  plan: JobPlan,
  recognizer: Recognizer,
  result: RecognitionResult,
  durationMs: number,
  personalData: EntityTagger | null,
  opts: { languageProbability?: number | null } = {},
): Promise<string> {
  if (result.words.length === 0 && result.text.trim() === '') throw new ServiceError('NO_SPEECH', 'no words recognised');
  const language = result.language ?? plan.spec.language ?? null;
  // Speaker labels only where asked for: otherwise no word carries a speaker and the transcript says null.
  const speakers = plan.spec.speaker_labels ? speakerSummary(result.words, result.segments) : null;
  return saveDraftTranscript(
    db,
    plan.jobId,
    {
      title: null,
      sourceOrigin: 'speech_recognition',
      language,
      text: result.text,
      segments: result.segments,
      words: result.words,
      timingGranularity: 'word',
      durationSeconds: durationMs / 1000,
      speakers,
      languages: result.languages ?? (language ? [{ language, seconds: spokenSeconds(result.segments) }] : []),
      recognition: {
        model: recognizer.model,
        profile: plan.spec.profile,
        quality_status: qualityStatus(recognizer, language),
        language_probability: opts.languageProbability ?? null,
      },
      extractionVersion: ASR_EXTRACTION_VERSION,
    },
    personalData,
  );
}

/** Removes a job's work files once its result is stored: the audio, `pieces` cut pieces with their results, and `extraKeys`. */
export async function cleanupWork(
  store: ObjectStore,
  jobId: string,
  pieces: number,
  extraKeys: (string | null | undefined)[] = [],
): Promise<void> {
  const keys = [
    workKey(jobId, 'audio.wav'),
    ...extraKeys.filter((k): k is string => !!k),
    ...Array.from({ length: pieces }, (_, i) => [workKey(jobId, `piece-${i}.wav`), workKey(jobId, `result-${i}.json`)]).flat(),
  ];
  await Promise.all(keys.map((k) => store.delete(k).catch(() => undefined)));
}
