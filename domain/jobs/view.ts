import type { Job } from '../../prisma/generated/client';
import type { ErrorObject } from '../../core/errors';
import { fromJsonColumn } from '../db';
import { specOfJob } from './spec';

export const FINAL_STATUSES = ['succeeded', 'failed', 'cancelled'] as const;
export const ACTIVE_STATUSES = ['queued', 'processing', 'awaiting_provider'] as const;
export const isFinal = (status: string) => (FINAL_STATUSES as readonly string[]).includes(status);

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
    retry: retrying ? { attempt: job.retryAttempt, last_error: fromJsonColumn<ErrorObject>(job.lastRetryError!) } : null,
    created_at: job.createdAt.toISOString(),
    updated_at: job.updatedAt.toISOString(),
  };
}
export type JobView = ReturnType<typeof toJobView>;
