import { randomUUID } from 'node:crypto';
import { Prisma } from '../../prisma/generated/client';
import { DEFAULT_MAX_CREDITS, transcriptionCredits, wordTimedCaptionCredits, type PlanId } from '../../core/plans';
import { ServiceError, type ErrorObject } from '../../core/errors';
import type { Segment, Word } from '../../core/timing';
import { renderTranscriptBody, type TranscriptAlignment } from '../transcripts/view';
import type { Chapter } from '../transcripts/chapters';
import type { StoredTranslation } from '../transcripts/translation';
import type { TranscriptSummary } from '../transcripts/summary';
import type { StoredRedactedAudio } from '../transcripts/redacted-audio';
import { type EntityTagger, kindsNotCovered, redactAligned, redactionCoverage, redactTranscript } from '../transcripts/redaction';
import { cleanText, cleanTranscriptWords, cleanWords, type CleanupOptions } from '../transcripts/cleanup';
import type { JobOutcome, JobStage } from '../../workflows/definitions';
import { chargeHoldIn, increaseHold, releaseHoldIn } from '../credits/ledger';
import { jsonColumn, type Db, type Tx } from '../db';
import { jobEventSubject, recordJobEvent } from '../webhooks/events';
import { reuseKey } from './reuse';
import { specOfJob } from './spec';
import type { JobSpec } from '../schemas/jobs';
import { ACTIVE_STATUSES, isFinal } from './view';
import { JOB_FINAL_CHANNEL } from './wakeups';

// A job's state after acceptance, as the job workflow moves it: queued →
// processing (with its stage) → awaiting_provider → succeeded, failed or
// cancelled. Each transition changes a row only from the state it expects,
// so a retried activity or a replayed workflow step changes nothing the
// second time; the activities (activities/job-state.ts, captions.ts,
// transcription.ts) are thin calls of these. The price cap of AI
// transcription is decided here too, before anything is charged.

/** The job's row as its workflow needs it to make a plan. */
export type StartedJob = Prisma.JobGetPayload<object>;

/** The stage a job starts in: share links are resolved first; otherwise captions, or the audio when captions are not wanted. */
export function firstStage(job: { mediaId: string; mode: string }): JobStage {
  if (job.mediaId.startsWith('share:')) return 'resolve';
  return job.mode === 'transcribe' ? 'acquire_audio' : 'captions';
}

/**
 * The workflow's first step: queued → processing, with the first stage and
 * the time the workflow started (so the starter need not look at the job
 * again). Null when the row is not there (yet: the accepting transaction may
 * commit a moment after the start; or ever). The row is returned as it was read.
 */
export async function startJob(db: Db, jobId: string): Promise<StartedJob | null> {
  const job = await db.job.findUnique({ where: { id: jobId } });
  if (!job) return null;
  if (job.status === 'queued') {
    await db.job.updateMany({
      where: { id: jobId, status: 'queued' },
      data: { status: 'processing', stage: firstStage(job), workflowStartedAt: job.workflowStartedAt ?? new Date() },
    });
  }
  return job;
}

/** The stage (and status) of a job that is still active. */
export async function setJobStage(db: Db, jobId: string, stage: JobStage, status?: 'processing' | 'awaiting_provider'): Promise<void> {
  await db.job.updateMany({
    where: { id: jobId, status: { in: [...ACTIVE_STATUSES] } },
    data: { stage, ...(status ? { status } : {}) },
  });
}

/** Shown on the job while Temporal retries a retryable error (the status stays processing). */
export async function recordJobRetry(db: Db, jobId: string, attempt: number, error: ErrorObject): Promise<void> {
  await db.job.updateMany({
    where: { id: jobId, status: { in: [...ACTIVE_STATUSES] } },
    data: { retryAttempt: attempt, lastRetryError: jsonColumn(error) },
  });
}

/** A share link resolved to the video it points at: its media id, canonical link and reuse key follow. */
export async function resolveJobSource(db: Db, jobId: string, resolved: { mediaId: string; canonicalUrl: string }): Promise<void> {
  const job = await db.job.findUniqueOrThrow({ where: { id: jobId }, include: { alignText: true } });
  await db.job.update({
    where: { id: jobId },
    data: {
      mediaId: resolved.mediaId,
      canonicalUrl: resolved.canonicalUrl,
      reuseKey: reuseKey({
        platform: job.platform,
        mediaId: resolved.mediaId,
        spec: specOfJob(job),
        alignText: job.alignText?.text ?? null,
      }),
    },
  });
}

/** How long the job's media is, once measured (null before); a retried acquisition reuses it. */
export async function measuredDuration(db: Db, jobId: string): Promise<number | null> {
  return (await db.job.findUniqueOrThrow({ where: { id: jobId }, select: { mediaDurationMs: true } })).mediaDurationMs;
}

/** The media is measured (and, for platform audio, its title known). */
export async function recordMediaMeasured(db: Db, jobId: string, measured: { durationMs: number; title?: string | null }): Promise<void> {
  await db.job.update({
    where: { id: jobId },
    data: { mediaDurationMs: measured.durationMs, ...(measured.title ? { title: measured.title } : {}) },
  });
}

/**
 * The price of AI transcription, before anything is charged: 2 credits per
 * started minute (60 s minimum); for a caption transcript with word times
 * (`wordTimedCaptions`), the caption credit on top. Over the job's
 * max_credits the job fails with BUDGET_EXCEEDED and nothing is charged;
 * otherwise the hold is raised to the price (INSUFFICIENT_BALANCE when it
 * cannot be).
 */
export async function reserveTranscriptionCredits(
  db: Db,
  jobId: string,
  durationMs: number,
  opts: { wordTimedCaptions?: boolean } = {},
): Promise<{ cost: number }> {
  const job = await db.job.findUniqueOrThrow({ where: { id: jobId }, include: { workspace: { select: { plan: true } } } });
  const cost = opts.wordTimedCaptions ? wordTimedCaptionCredits(durationMs) : transcriptionCredits(durationMs);
  const cap = job.maxCredits ?? DEFAULT_MAX_CREDITS;
  if (cost > cap) {
    const what = opts.wordTimedCaptions ? 'Word timing for' : 'Transcribing';
    throw new ServiceError('BUDGET_EXCEEDED', `cost=${cost} > max_credits=${cap}`, {
      message: `${what} ${Math.ceil(durationMs / 1000)} s costs ${cost} credits, over max_credits ${cap}. Nothing was charged.`,
    });
  }
  if (job.holdId) await increaseHold(db, job.holdId, cost, job.workspace.plan as PlanId);
  await db.job.update({
    where: { id: jobId },
    data: { creditsReserved: Math.max(cost, job.creditsReserved), billingKind: opts.wordTimedCaptions ? 'captions' : 'ai_transcription' },
  });
  return { cost };
}

/** From here on a cancel is refused: the audio goes to a recognizer (stage submit_asr). */
export async function markAsrStarted(db: Db, jobId: string): Promise<void> {
  await db.job.updateMany({ where: { id: jobId, asrStartedAt: null }, data: { asrStartedAt: new Date(), stage: 'submit_asr' } });
}

/** The cloud recognizer's job id, once submitted (null before): a retried submission reuses it. */
export async function providerJobIdOf(db: Db, jobId: string): Promise<string | null> {
  return (await db.job.findUniqueOrThrow({ where: { id: jobId }, select: { providerJobId: true } })).providerJobId;
}

/** Submitted to the cloud recognizer: the job waits for its callback (awaiting_provider, stage wait_asr). */
export async function awaitProvider(db: Db, jobId: string, providerJobId: string): Promise<void> {
  await db.job.update({ where: { id: jobId }, data: { providerJobId, status: 'awaiting_provider', stage: 'wait_asr' } });
}

/** The content a pipeline produced; the source fields come from the job. */
export interface TranscriptContent {
  title: string | null;
  sourceOrigin: 'creator_captions' | 'platform_captions' | 'speech_recognition' | 'provided_text';
  language: string | null;
  text: string;
  segments: Segment[];
  words: Word[] | null;
  timingGranularity: 'word' | 'segment' | 'none';
  durationSeconds: number | null;
  /** Speaker labels asked for: each speaker's words and seconds; null otherwise. */
  speakers?: { id: string; words: number; seconds: number }[] | null;
  /** Seconds spoken per language, longest first. */
  languages?: { language: string; seconds: number }[];
  /** Caption tracks: the platform's label checked against the text. */
  captionLanguageCheck?: { label: string | null; detected: string | null; matches: boolean | null } | null;
  recognition: { model: string; profile: 'standard' | 'fast'; quality_status: string; language_probability?: number | null } | null;
  /** Aligned transcripts: how the word times were found (null otherwise). */
  alignment?: TranscriptAlignment | null;
  extractionVersion: string;
}

/**
 * Stores the job's transcript, unpublished (invisible) until completeJob
 * publishes it in the transaction that charges the hold, and moves the job to
 * stage finalize. Upserts on the job id, so a retried step overwrites instead
 * of duplicating.
 */
export async function saveDraftTranscript(
  db: Db,
  jobId: string,
  produced: TranscriptContent,
  tagger: EntityTagger | null,
): Promise<string> {
  const job = await db.job.findUniqueOrThrow({ where: { id: jobId } });
  // The clean-up and redaction the job asked for (filter_profanity, disfluencies, redact_pii) before anything is stored.
  const content = await cleanedAsAsked(specOfJob(job), produced, tagger);
  const data = {
    workspaceId: job.workspaceId,
    reuseKey: job.reuseKey,
    platform: job.platform,
    mediaId: job.mediaId,
    canonicalUrl: job.canonicalUrl,
    title: content.title ?? job.title,
    sourceOrigin: content.sourceOrigin,
    language: content.language,
    text: content.text,
    segments: jsonColumn(content.segments),
    // Null, not left out: a retried step that writes no words must not keep an earlier attempt's.
    words: content.words ? jsonColumn(content.words) : Prisma.DbNull,
    timingGranularity: content.timingGranularity,
    durationSeconds: content.durationSeconds,
    recognition: content.recognition ? jsonColumn(content.recognition) : Prisma.DbNull,
    speakers: content.speakers ? jsonColumn(content.speakers) : Prisma.DbNull,
    languages: content.languages ? jsonColumn(content.languages) : Prisma.DbNull,
    captionLanguageCheck: content.captionLanguageCheck ? jsonColumn(content.captionLanguageCheck) : Prisma.DbNull,
    alignment: content.alignment ? jsonColumn(content.alignment) : Prisma.DbNull,
    // Written by the chapters step after this one (saveTranscriptChapters); a rewritten draft has none yet.
    chapters: Prisma.DbNull,
    // Written by the translation step (saveTranscriptTranslation), as the chapters are.
    translation: Prisma.DbNull,
    // Written by the summary step (saveTranscriptSummary), the last before publication.
    summary: Prisma.DbNull,
    // Written by the redacted audio step (saveTranscriptRedactedAudio).
    redactedAudio: Prisma.DbNull,
    extractionVersion: content.extractionVersion,
    // Replaced by the retention window when published.
    expiresAt: new Date(Date.now() + 86400_000),
  };
  const rendering = renderTranscriptBody({
    ...content,
    platform: data.platform,
    mediaId: data.mediaId,
    canonicalUrl: data.canonicalUrl,
    title: data.title,
  });
  // The row and its rendering in one transaction: two attempts of the step racing (a timed-out one still
  // running) take turns on the row, so the rendering is always the row's.
  const t = await db.$transaction(async (tx) => {
    const written = await tx.transcript.upsert({
      where: { jobId },
      create: { id: randomUUID(), jobId, ...data },
      update: data,
      select: { id: true },
    });
    await storeRendering(tx, written.id, rendering);
    return written;
  });
  // The result is stored: what remains is committing it, so the job shows stage finalize from here
  // (written with the title, no step of its own).
  await db.job.updateMany({
    where: { id: jobId, status: { in: [...ACTIVE_STATUSES] } },
    data: { stage: 'finalize', ...(content.title && content.title !== job.title ? { title: content.title } : {}) },
  });
  return t.id;
}

/** The draft's rendering (domain/transcripts/view.ts), written in the transaction that writes its row. */
async function storeRendering(tx: Tx, transcriptId: string, body: string): Promise<void> {
  await tx.transcriptRendering.upsert({ where: { transcriptId }, create: { transcriptId, body }, update: { body } });
}

/** word_timing: the draft caption transcript gains its aligned words and matches; the job is at finalize again. */
export async function saveCaptionAlignment(
  db: Db,
  jobId: string,
  transcriptId: string,
  aligned: { segments: Segment[]; words: Word[]; alignment: TranscriptAlignment },
  tagger: EntityTagger | null,
): Promise<void> {
  const job = await db.job.findUniqueOrThrow({ where: { id: jobId } });
  const language = (await db.transcript.findUniqueOrThrow({ where: { id: transcriptId }, select: { language: true } })).language;
  const spec = specOfJob(job);
  const cleanup = cleanupOf(spec);
  assertRedactable(spec, { language, segments: aligned.segments }, tagger);
  const redacted = await redactAligned(
    aligned.segments.map((s) => ({ ...s, text: cleanText(s.text, s.language ?? language, cleanup) })),
    cleanWords(aligned.words, language, cleanup),
    language,
    spec.redact_pii_types ?? [],
    tagger,
  );
  const segments = redacted.segments.filter((s) => s.text.trim() !== '');
  const words = redacted.words;
  await db.$transaction(async (tx) => {
    const t = await tx.transcript.update({
      where: { id: transcriptId },
      data: {
        segments: jsonColumn(segments),
        words: jsonColumn(words),
        timingGranularity: 'word',
        alignment: jsonColumn(aligned.alignment),
      },
    });
    await storeRendering(tx, transcriptId, renderTranscriptBody(t));
  });
  await db.job.updateMany({ where: { id: jobId, status: { in: [...ACTIVE_STATUSES] } }, data: { stage: 'finalize' } });
}

/**
 * What a later step adds onto the draft transcript (chapters, translation, redacted audio, summary): the row and its
 * rendering in one transaction. Idempotent (the same value written again is the same row); a published transcript
 * is never changed.
 */
async function addToDraftTranscript(db: Db, transcriptId: string, data: Prisma.TranscriptUpdateManyMutationInput): Promise<void> {
  await db.$transaction(async (tx) => {
    const updated = await tx.transcript.updateManyAndReturn({ where: { id: transcriptId, publishedAt: null }, data });
    if (updated[0]) await storeRendering(tx, transcriptId, renderTranscriptBody(updated[0]));
  });
}

/** `chapters: true`. */
export const saveTranscriptChapters = (db: Db, transcriptId: string, chapters: Chapter[]) =>
  addToDraftTranscript(db, transcriptId, { chapters: jsonColumn(chapters) });

/** `translate_to`: one text per segment. */
export const saveTranscriptTranslation = (db: Db, transcriptId: string, translation: StoredTranslation) =>
  addToDraftTranscript(db, transcriptId, { translation: jsonColumn(translation) });

/** `redacted_audio`: where the copy is and how many stretches the tone covers. */
export const saveTranscriptRedactedAudio = (db: Db, transcriptId: string, audio: StoredRedactedAudio) =>
  addToDraftTranscript(db, transcriptId, { redactedAudio: jsonColumn(audio) });

/** `summarize`. */
export const saveTranscriptSummary = (db: Db, transcriptId: string, summary: TranscriptSummary) =>
  addToDraftTranscript(db, transcriptId, { summary: jsonColumn(summary) });

/**
 * Names, addresses and IDs are found in the languages of the redaction's coverage only: a transcript in another
 * language (or with a segment in one) whose job asked for one of them fails here, before anything is stored, rather
 * than being published with what it asked to hide.
 */
function assertRedactable(
  spec: JobSpec,
  content: { language: string | null; segments: Array<{ language?: string | null }> },
  tagger: EntityTagger | null,
) {
  const types = spec.redact_pii_types ?? [];
  const coverage = redactionCoverage(tagger);
  const languages = new Set([content.language, ...content.segments.map((s) => s.language ?? content.language)]);
  for (const language of languages) {
    const missing = kindsNotCovered(coverage, types, language);
    if (missing.length === 0) continue;
    const where = coverage.languages[missing[0]!];
    throw new ServiceError('CAPABILITY_UNAVAILABLE', 'redact_pii_types', {
      message:
        where.length > 0
          ? `${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} redacted in ${where.join(', ')} only; this transcript is in ${language ?? 'an unknown language'}. Nothing was stored or charged.`
          : `${missing.join(', ')} need${missing.length > 1 ? '' : 's'} the personal-data model, which this worker does not have. Nothing was stored or charged.`,
    });
  }
}

/**
 * The clean-up and redaction a job asked for (filter_profanity, disfluencies, redact_pii), applied to words before
 * any of them is stored: the draft transcript, and the segments a running job publishes (partial-segments.ts).
 * `tagger`: the personal-data model (names, addresses, IDs), or null where the worker has none.
 */
export async function cleanedAsAsked<
  C extends { text: string; language: string | null; segments: Array<Segment>; words: Array<Word> | null },
>(spec: JobSpec, produced: C, tagger: EntityTagger | null): Promise<C> {
  assertRedactable(spec, produced, tagger);
  const cleaned = { ...produced, ...cleanTranscriptWords(produced, cleanupOf(spec)) };
  return { ...cleaned, ...(await redactTranscript(cleaned, spec.redact_pii_types ?? [], tagger)) };
}

/** The clean-up a job's spec asks for. */
function cleanupOf(spec: JobSpec): CleanupOptions {
  return { filterProfanity: spec.filter_profanity, disfluencies: spec.disfluencies };
}

/** What completeJob reads back from the row it moved. */
interface MovedJob {
  workspaceId: string;
  holdId: string | null;
  batchId: string | null;
  endpointId: string | null;
  metadata: Record<string, string>;
  finishedAt: Date;
}

async function notifyFinal(tx: Tx, jobId: string): Promise<void> {
  // Delivered on commit only, so a woken long poll always reads the final state.
  await tx.$executeRaw`SELECT pg_notify(${JOB_FINAL_CHANNEL}, ${jobId})`;
}

/**
 * Success: charges the hold, publishes the transcript, marks the job
 * succeeded and wakes long polls in one transaction. Three statements (and
 * the event's, with a webhook endpoint): it is on every job's path from the
 * result to the answer.
 */
export async function completeJob(
  db: Db,
  jobId: string,
  result: { transcriptId: string; charge: number; billingKind: 'captions' | 'ai_transcription' },
): Promise<JobOutcome> {
  return db.$transaction(async (tx) => {
    // The transition itself first: of two attempts racing, only one moves the row (the other sees it final).
    const moved = await tx.$queryRaw<MovedJob[]>`
      UPDATE jobs SET status = 'succeeded', stage = NULL, result_id = ${result.transcriptId}::uuid, billing_kind = ${result.billingKind}::"BillingKind",
        credits_reserved = 0, finished_at = now(), retry_attempt = 0, last_retry_error = NULL, updated_at = now()
      WHERE id = ${jobId}::uuid AND status = ANY(${[...ACTIVE_STATUSES]}::"JobStatus"[])
      RETURNING workspace_id::text AS "workspaceId", hold_id::text AS "holdId", batch_id::text AS "batchId",
        webhook_endpoint_id::text AS "endpointId", metadata, finished_at AS "finishedAt"`;
    const job = moved[0];
    if (!job) {
      const current = await tx.job.findUniqueOrThrow({ where: { id: jobId }, select: { status: true } });
      return { status: current.status as JobOutcome['status'], eventId: await existingEventId(tx, jobId) };
    }
    const settled = job.holdId ? await chargeHoldIn(tx, job.holdId, result.charge, { jobSlot: true }) : { charged: 0 };
    // Published for the workspace's retention window, counted from the same instant as finished_at; long
    // polls woken in the same statement (a notification is delivered on commit only, so a woken long poll
    // always reads the final state).
    await tx.$executeRaw`
      WITH published AS (
        UPDATE transcripts SET published_at = ${job.finishedAt},
          expires_at = ${job.finishedAt}::timestamptz + make_interval(days => (SELECT retention_days FROM workspaces WHERE id = ${job.workspaceId}::uuid))
        WHERE id = ${result.transcriptId}::uuid),
      notified AS (SELECT pg_notify(${JOB_FINAL_CHANNEL}, ${jobId})),
      -- A growing transcript's segments give way to the transcript (domain/jobs/partial-segments.ts).
      cleared AS (DELETE FROM job_segments WHERE job_id = ${jobId}::uuid)
      UPDATE jobs SET credits_charged = ${settled.charged} FROM notified WHERE id = ${jobId}::uuid`;
    const eventId = await recordJobEvent(tx, { ...job, id: jobId }, { type: 'job.succeeded', resultId: result.transcriptId });
    return { status: 'succeeded', eventId };
  });
}

/** Permanent failure: releases the hold, records the error, nothing charged. */
export function failJob(db: Db, jobId: string, error: ErrorObject): Promise<JobOutcome> {
  return finish(db, jobId, 'failed', error);
}

/** Cancelled while no AI transcription had started: releases the hold. */
export function cancelJobState(db: Db, jobId: string): Promise<JobOutcome> {
  return finish(db, jobId, 'cancelled', null);
}

async function finish(db: Db, jobId: string, status: 'failed' | 'cancelled', error: ErrorObject | null): Promise<JobOutcome> {
  return db.$transaction(async (tx) => {
    const job = await tx.job.findUnique({ where: { id: jobId } });
    if (!job) return { status, eventId: null };
    if (isFinal(job.status)) return { status: job.status as JobOutcome['status'], eventId: await existingEventId(tx, jobId) };
    // The transition first: of two attempts racing, only one moves the row.
    const moved = await tx.job.updateMany({
      where: { id: jobId, status: { in: [...ACTIVE_STATUSES] } },
      data: {
        status,
        stage: null,
        creditsReserved: 0,
        creditsCharged: 0,
        finishedAt: new Date(),
        error: error ? jsonColumn(error) : Prisma.DbNull,
        retryAttempt: 0,
        lastRetryError: Prisma.DbNull,
      },
    });
    if (moved.count === 0) return { status, eventId: await existingEventId(tx, jobId) };
    if (job.holdId) await releaseHoldIn(tx, job.holdId, { jobSlot: true });
    // A transcript written before the failure is never published, nor are the segments shown while it ran.
    await tx.transcript.deleteMany({ where: { jobId, publishedAt: null } });
    await tx.jobSegment.deleteMany({ where: { jobId } });
    // Cancelled jobs emit no event (the spec names job.succeeded and job.failed only).
    const eventId =
      status === 'failed' ? await recordJobEvent(tx, { ...job, endpointId: job.webhookEndpointId }, { type: 'job.failed', error }) : null;
    await notifyFinal(tx, jobId);
    return { status, eventId };
  });
}

async function existingEventId(tx: Tx, jobId: string): Promise<string | null> {
  return (await tx.webhookEvent.findUnique({ where: { subjectKey: jobEventSubject(jobId) }, select: { id: true } }))?.id ?? null;
}
