import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ServiceError, type ErrorObject } from '../core/errors';
import type { Db } from '../domain/db';
import { cancelJobState, completeJob, failJob, firstStage, recordJobRetry, setJobStage, startJob } from '../domain/jobs/state';
import { isFinal } from '../domain/jobs/view';
import { specOfJob } from '../domain/jobs/spec';
import { indexTranscript } from '../domain/search/index';
import { JOB_NOT_COMMITTED, type JobOutcome, type JobPlan, type JobStage } from '../workflows/definitions';
import { asActivity } from './failures';

/** Attempts of startJob (100 ms doubling to 30 s: about a minute) before a missing job is taken as never committed. */
const NOT_COMMITTED_AFTER_ATTEMPTS = 10;

// The job workflow's state steps: thin calls of the transitions in
// domain/jobs/state.ts (each idempotent there), plus what only the worker
// knows (which recognizer it runs, Temporal's attempt number).

export function createJobStateActivities(
  db: Db,
  opts: { recognizer: 'local' | 'cloud'; recognitionTaskQueue?: string; embeddingTaskQueue?: string; summaryTaskQueue?: string } = {
    recognizer: 'local',
  },
) {
  return {
    /**
     * First step: moves the job from queued to processing and returns its
     * plan. The workflow may start a moment before the API's transaction
     * commits, so "not found" is retried for a while; a job that never
     * appears (its transaction rolled back) ends the workflow without effect.
     */
    async startJob(jobId: string): Promise<JobPlan | null> {
      return asActivity(async () => {
        const job = await startJob(db, jobId);
        if (!job) {
          if (Context.current().info.attempt < NOT_COMMITTED_AFTER_ATTEMPTS)
            throw new ServiceError('STORAGE_UNAVAILABLE', 'job_not_visible_yet');
          throw ApplicationFailure.create({ type: JOB_NOT_COMMITTED, nonRetryable: true, message: `Job ${jobId} was never committed.` });
        }
        return {
          jobId,
          workspaceId: job.workspaceId,
          platform: job.platform,
          mediaId: job.mediaId,
          sourceUrl: job.sourceUrl,
          canonicalUrl: job.canonicalUrl,
          recognizer: opts.recognizer,
          ...(opts.recognitionTaskQueue ? { recognitionTaskQueue: opts.recognitionTaskQueue } : {}),
          ...(opts.embeddingTaskQueue ? { embeddingTaskQueue: opts.embeddingTaskQueue } : {}),
          ...(opts.summaryTaskQueue ? { summaryTaskQueue: opts.summaryTaskQueue } : {}),
          spec: specOfJob(job),
          holdId: job.holdId,
          status: isFinal(job.status) ? job.status : 'processing',
          stage: job.status === 'queued' ? firstStage(job) : job.stage,
        };
      });
    },
    async setStage(jobId: string, stage: JobStage, status?: 'processing' | 'awaiting_provider'): Promise<void> {
      await setJobStage(db, jobId, stage, status);
    },
    async completeJob(
      jobId: string,
      result: { transcriptId: string; charge: number; billingKind: 'captions' | 'ai_transcription' },
    ): Promise<JobOutcome> {
      return completeJob(db, jobId, result);
    },
    async failJob(jobId: string, error: ErrorObject): Promise<JobOutcome> {
      return failJob(db, jobId, error);
    },
    async cancelJob(jobId: string): Promise<JobOutcome> {
      return cancelJobState(db, jobId);
    },
    /** The transcript's moments for search, written whole (domain/search/index.ts); run again, the same rows. */
    async indexTranscriptForSearch(transcriptId: string): Promise<number> {
      return indexTranscript(db, transcriptId);
    },
    async recordRetry(jobId: string, attempt: number, error: ErrorObject): Promise<void> {
      await recordJobRetry(db, jobId, attempt, error);
    },
  };
}
