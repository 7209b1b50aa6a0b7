// Names shared by the API (client side) and the worker: task queues, workflow
// ids, signals, updates and queries. No Node built-ins here: workflow code imports it.

export const workflowIds = {
  job: (jobId: string) => `job-${jobId}`,
  batch: (batchId: string) => `batch-${batchId}`,
  webhook: (eventId: string) => `webhook-${eventId}`,
  transcriptPurge: (transcriptId: string) => `purge-transcript-${transcriptId}`,
  uploadVerify: (uploadId: string) => `upload-verify-${uploadId}`,
};

/** Automatic retry of retryable errors (growing delays). */
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
}

/** Cloud recognizer: poll this often when no callback came, and give up after the timeout. */
export const DEFAULT_PROVIDER_POLL_MS = 60_000;
export const DEFAULT_PROVIDER_TIMEOUT_MS = 3 * 3600_000;
export const PROVIDER_CALLBACK_SIGNAL = 'providerCallback';

export interface BatchWorkflowInput {
  batchId: string;
  /** Children that need work (reused items are already succeeded). */
  jobIds: string[];
}

export const BATCH_WORKFLOW = 'batchWorkflow';

export interface CancelResult {
  cancelled: boolean;
}

export const JOB_WORKFLOW = 'jobWorkflow';
/** Failure type of the job's first step when its row never appeared (the accepting transaction rolled back). */
export const JOB_NOT_COMMITTED = 'JOB_NOT_COMMITTED';
/** Update: the workflow alone decides whether a cancel is still allowed. */
export const CANCEL_UPDATE = 'cancel';

export const TRANSCRIPT_PURGE_WORKFLOW = 'purgeTranscriptWorkflow';
export const RETENTION_SCHEDULE_ID = 'transcript-retention';
export const RETENTION_WORKFLOW = 'retentionSweepWorkflow';

export const WEBHOOK_WORKFLOW = 'webhookDeliveryWorkflow';
/**
 * Delays between delivery attempts: 10 s, 30 s, 2 min, 10 min, 30 min, 1 h,
 * 2 h, 4 h, 8 h, 8 h — 11 attempts over about 23.7 hours.
 */
export const DEFAULT_WEBHOOK_DELAYS_MS = [10e3, 30e3, 120e3, 600e3, 1800e3, 3600e3, 7200e3, 14400e3, 28800e3, 28800e3];

export interface WebhookDeliveryInput {
  eventId: string;
  /** A resend from the dashboard delivers again even when an earlier attempt succeeded. */
  resend?: boolean;
  /** The attempt to start with (2 when the causing workflow already made the first). */
  startAttempt?: number;
}

export const UPLOAD_VERIFY_WORKFLOW = 'verifyUploadWorkflow';
