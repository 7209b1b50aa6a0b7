// Names shared by the API (client side) and the worker: task queues, workflow
// ids, signals, updates and queries. No Node built-ins here: workflow code imports it.

export const TASK_QUEUE = 'transcripts';

export const workflowIds = {
  job: (jobId: string) => `job-${jobId}`,
  batch: (batchId: string) => `batch-${batchId}`,
  webhook: (eventId: string) => `webhook-${eventId}`,
  transcriptPurge: (transcriptId: string) => `purge-transcript-${transcriptId}`,
};

/** Automatic retry of retryable errors (growing delays); tests shorten it. */
export interface RetrySettings {
  initialIntervalMs: number;
  backoffCoefficient: number;
  maximumIntervalMs: number;
  maximumAttempts: number;
}

export const DEFAULT_RETRY: RetrySettings = {
  // 5 s, 10 s, 20 s, 40 s, 80 s, 160 s: about five minutes before giving up.
  initialIntervalMs: 5_000,
  backoffCoefficient: 2,
  maximumIntervalMs: 300_000,
  maximumAttempts: 7,
};

export interface JobWorkflowInput {
  jobId: string;
  retry: RetrySettings;
}

export interface CancelResult {
  cancelled: boolean;
}

export const JOB_WORKFLOW = 'jobWorkflow';
/** Update: the workflow alone decides whether a cancel is still allowed. */
export const CANCEL_UPDATE = 'cancel';

export const TRANSCRIPT_PURGE_WORKFLOW = 'purgeTranscriptWorkflow';
export const RETENTION_SCHEDULE_ID = 'transcript-retention';
export const RETENTION_WORKFLOW = 'retentionSweepWorkflow';
