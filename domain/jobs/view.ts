import type { Job } from '../../prisma/generated/client';
import type { ErrorObject } from '../../core/errors';
import { fromJsonColumn } from '../db';
import { specOfJob } from './spec';

export const FINAL_STATUSES = ['succeeded', 'failed', 'cancelled'] as const;
export const ACTIVE_STATUSES = ['queued', 'processing', 'awaiting_provider'] as const;
export const isFinal = (status: string) => (FINAL_STATUSES as readonly string[]).includes(status);

export interface JobProgressView {
  transcribed_seconds: number;
  total_seconds: number;
}

const seconds = (ms: number) => Math.round(ms) / 1000;

/**
 * How much of the media is transcribed: null until the media is measured (and for jobs that never measure it:
 * captions). A succeeded job has all of it; a running one the stretch from the start whose segments are published.
 */
export function progressOf(job: Pick<Job, 'status' | 'mediaDurationMs' | 'transcribedMs'>): JobProgressView | null {
  if (job.mediaDurationMs === null) return null;
  const done = job.status === 'succeeded' ? job.mediaDurationMs : Math.min(job.transcribedMs, job.mediaDurationMs);
  return { transcribed_seconds: seconds(done), total_seconds: seconds(job.mediaDurationMs) };
}

/** The job as the API shows it. */
export function toJobView(job: Job) {
  const retrying = !isFinal(job.status) && job.retryAttempt > 0 && job.lastRetryError;
  return {
    id: job.id,
    status: job.status,
    stage: isFinal(job.status) ? null : job.stage,
    result_id: job.resultId,
    error: (job.error as ErrorObject | null) ?? null,
    billing: {
      credits_reserved: isFinal(job.status) ? 0 : job.creditsReserved,
      credits_charged: job.creditsCharged,
      kind: job.billingKind,
    },
    source: {
      platform: job.platform,
      media_id: job.mediaId,
      canonical_url: job.canonicalUrl,
      title: job.title,
      upload_id: job.uploadId,
    },
    options: specOfJob(job),
    metadata: job.metadata as Record<string, string>,
    batch_id: job.batchId,
    progress: progressOf(job),
    retry: retrying ? { attempt: job.retryAttempt, last_error: fromJsonColumn<ErrorObject>(job.lastRetryError!) } : null,
    created_at: job.createdAt.toISOString(),
    updated_at: job.updatedAt.toISOString(),
  };
}
export type JobView = ReturnType<typeof toJobView>;
