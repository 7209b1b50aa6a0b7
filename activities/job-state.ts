import { Prisma } from '../prisma/generated/client';
import { chargeHoldIn, releaseHoldIn } from '../domain/credits/ledger';
import type { Db, Tx } from '../domain/db';
import { ServiceError, type ErrorObject } from '../domain/errors';
import { JOB_FINAL_CHANNEL } from '../domain/jobs/wakeups';
import { recordEvent } from '../domain/webhooks/events';
import { ACTIVE_STATUSES, isFinal } from '../domain/jobs/view';
import { asActivity } from './failures';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { JOB_NOT_COMMITTED } from '../workflows/definitions';

/** Attempts of startJob (100 ms doubling to 30 s: about a minute) before a missing job is taken as never committed. */
const NOT_COMMITTED_AFTER_ATTEMPTS = 10;

// Activities that move a job's state. Each is idempotent: it changes a row
// only from the state it expects, so a retried activity or a replayed
// workflow step changes nothing the second time.

/** What the workflow needs to run a job: small, no transcript content. */
export interface JobPlan {
  jobId: string;
  workspaceId: string;
  mode: 'captions_only' | 'auto' | 'transcribe';
  platform: string;
  mediaId: string;
  sourceUrl: string | null;
  canonicalUrl: string | null;
  /** Which recognizer this worker uses for AI transcription: local pieces, or the cloud provider with callbacks. */
  recognizer: 'local' | 'cloud';
  /** Task queue of the recognition workers (recognizePiece); absent = the job's own queue (the workflow tests' mocks). */
  recognitionTaskQueue?: string;
  captionLanguages: string[];
  captionPreference: 'prefer_creator' | 'creator_only' | 'automatic_only';
  language: string | null;
  holdId: string | null;
  status: string;
  /** The stage the job's row is in (startJob writes the first one). */
  stage: string | null;
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

/** The stage a job starts in: share links are resolved first; otherwise captions, or the audio when captions are not wanted. */
export function firstStage(job: { mediaId: string; mode: string }): string {
  if (job.mediaId.startsWith('share:')) return 'resolve';
  return job.mode === 'transcribe' ? 'acquire_audio' : 'captions';
}

/** The final status, and the id of the webhook event the change produced (null when none). */
export type JobOutcome = { status: 'succeeded' | 'failed' | 'cancelled'; eventId?: string | null };

async function notifyFinal(tx: Tx, jobId: string): Promise<void> {
  // Delivered on commit only, so a woken long poll always reads the final state.
  await tx.$executeRaw`SELECT pg_notify(${JOB_FINAL_CHANNEL}, ${jobId})`;
}

export function createJobStateActivities(
  db: Db,
  opts: { recognizer: 'local' | 'cloud'; recognitionTaskQueue?: string } = { recognizer: 'local' },
) {
  return {
    /**
     * First step: moves the job from queued to processing. The workflow may
     * start a moment before the API's transaction commits, so "not found" is
     * retried for a while; a job that never appears (its transaction rolled
     * back) ends the workflow without effect.
     */
    async startJob(jobId: string): Promise<JobPlan | null> {
      return asActivity(async () => {
        const job = await db.job.findUnique({ where: { id: jobId } });
        if (!job) {
          // Retried (about 30 s) in case the accepting transaction has not committed yet; then it never will.
          if (Context.current().info.attempt < NOT_COMMITTED_AFTER_ATTEMPTS)
            throw new ServiceError('STORAGE_UNAVAILABLE', 'job_not_visible_yet');
          throw ApplicationFailure.create({ type: JOB_NOT_COMMITTED, nonRetryable: true, message: `Job ${jobId} was never committed.` });
        }
        if (job.status === 'queued') {
          // workflowStartedAt: this workflow exists, so the starter need not look at the job again.
          // The first stage is written with the move, so no step of its own has to write it.
          await db.job.updateMany({
            where: { id: jobId, status: 'queued' },
            data: { status: 'processing', stage: firstStage(job), workflowStartedAt: job.workflowStartedAt ?? new Date() },
          });
        }
        return {
          jobId,
          workspaceId: job.workspaceId,
          mode: job.mode as JobPlan['mode'],
          platform: job.platform,
          mediaId: job.mediaId,
          sourceUrl: job.sourceUrl,
          canonicalUrl: job.canonicalUrl,
          recognizer: opts.recognizer,
          ...(opts.recognitionTaskQueue ? { recognitionTaskQueue: opts.recognitionTaskQueue } : {}),
          captionLanguages: job.captionLanguages,
          captionPreference: job.captionPreference as JobPlan['captionPreference'],
          language: job.language,
          holdId: job.holdId,
          status: isFinal(job.status) ? job.status : 'processing',
          stage: job.status === 'queued' ? firstStage(job) : job.stage,
        };
      });
    },

    async setStage(jobId: string, stage: string, status?: 'processing' | 'awaiting_provider'): Promise<void> {
      await db.job.updateMany({
        where: { id: jobId, status: { in: ['queued', 'processing', 'awaiting_provider'] } },
        data: { stage, ...(status ? { status } : {}) },
      });
    },

    /**
     * Success: charges the hold, publishes the transcript and marks the job
     * succeeded in one transaction, then wakes long polls. Four statements: it
     * is on every job's path from the result to the answer.
     */
    async completeJob(
      jobId: string,
      result: { transcriptId: string; charge: number; billingKind: 'captions' | 'ai_transcription' },
    ): Promise<JobOutcome> {
      return db.$transaction(async (tx) => {
        // The transition itself first: of two attempts racing, only one moves the row (the other sees it final).
        const moved = await tx.$queryRaw<MovedJob[]>`
          UPDATE jobs SET status = 'succeeded', stage = NULL, result_id = ${result.transcriptId}::uuid, billing_kind = ${result.billingKind},
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
        // Published for the workspace's retention window, counted from the same instant as finished_at.
        await tx.$executeRaw`
          WITH published AS (
            UPDATE transcripts SET published_at = ${job.finishedAt},
              expires_at = ${job.finishedAt}::timestamptz + make_interval(days => (SELECT retention_days FROM workspaces WHERE id = ${job.workspaceId}::uuid))
            WHERE id = ${result.transcriptId}::uuid)
          UPDATE jobs SET credits_charged = ${settled.charged} WHERE id = ${jobId}::uuid`;
        const eventId = await recordEvent(tx, {
          workspaceId: job.workspaceId,
          endpointId: job.endpointId,
          type: 'job.succeeded',
          subjectKey: `job:${jobId}`,
          jobId,
          batchId: job.batchId,
          resultId: result.transcriptId,
          metadata: job.metadata,
          error: null,
        });
        await notifyFinal(tx, jobId);
        return { status: 'succeeded', eventId };
      });
    },

    /** Permanent failure: releases the hold, records the error, nothing charged. */
    async failJob(jobId: string, error: ErrorObject): Promise<JobOutcome> {
      return finish(db, jobId, 'failed', error);
    },

    /** Cancelled while no AI transcription had started: releases the hold. */
    async cancelJob(jobId: string): Promise<JobOutcome> {
      return finish(db, jobId, 'cancelled', null);
    },

    /** Shown on the job while Temporal retries a retryable error (status stays processing). */
    async recordRetry(jobId: string, attempt: number, error: ErrorObject): Promise<void> {
      await recordRetry(db, jobId, attempt, error);
    },
  };
}

export async function recordRetry(db: Db, jobId: string, attempt: number, error: ErrorObject): Promise<void> {
  await db.job.updateMany({
    where: { id: jobId, status: { in: ['queued', 'processing', 'awaiting_provider'] } },
    data: { retryAttempt: attempt, lastRetryError: error as unknown as Prisma.InputJsonValue },
  });
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
        error: error ? (error as unknown as Prisma.InputJsonValue) : Prisma.DbNull,
        retryAttempt: 0,
        lastRetryError: Prisma.DbNull,
      },
    });
    if (moved.count === 0) return { status, eventId: await existingEventId(tx, jobId) };
    if (job.holdId) await releaseHoldIn(tx, job.holdId, { jobSlot: true });
    // A transcript written before the failure is never published.
    await tx.transcript.deleteMany({ where: { jobId, publishedAt: null } });
    // Cancelled jobs emit no event (the spec names job.succeeded and job.failed only).
    const eventId =
      status === 'failed'
        ? await recordEvent(tx, {
            workspaceId: job.workspaceId,
            endpointId: job.webhookEndpointId,
            type: 'job.failed',
            subjectKey: `job:${jobId}`,
            jobId,
            batchId: job.batchId,
            resultId: null,
            metadata: job.metadata as Record<string, string>,
            error,
          })
        : null;
    await notifyFinal(tx, jobId);
    return { status, eventId };
  });
}

async function existingEventId(tx: Tx, jobId: string): Promise<string | null> {
  return (await tx.webhookEvent.findUnique({ where: { subjectKey: `job:${jobId}` }, select: { id: true } }))?.id ?? null;
}
