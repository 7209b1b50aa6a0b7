import { defineSignal, defineUpdate } from '@temporalio/workflow';
// Names shared by the API (client side) and the worker: task queues, workflow
// ids, signals, updates and queries, defined once here and used by both sides
// (the client sends them by these definitions, the workflow handles them). No
// Node built-ins here: workflow code imports it.

export const workflowIds = {
  job: (jobId: string) => `job-${jobId}`,
  batch: (batchId: string) => `batch-${batchId}`,
  webhook: (eventId: string) => `webhook-${eventId}`,
  /** A resend from the dashboard is a delivery of its own, beside the event's first one. */
  webhookResend: (eventId: string, at: number) => `webhook-${eventId}-resend-${at}`,
  transcriptPurge: (transcriptId: string) => `purge-transcript-${transcriptId}`,
  uploadVerify: (uploadId: string) => `upload-verify-${uploadId}`,
  videoDiscovery: (id: string) => `video-discovery-${id}`,
  languageDiscovery: (id: string) => `language-discovery-${id}`,
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

/**
 * Speech recognition runs in its own worker pool (the Python worker in
 * recognizer/, loading the model once per process) on its own task queue, so
 * it scales apart from everything else. The queue a job uses comes with its
 * plan (RECOGNITION_TASK_QUEUE, this by default); its activity, `recognizePiece`, is
 * called by name (typed by activities/recognition.ts).
 */
export const RECOGNITION_TASK_QUEUE = 'recognition';
/** How long a piece may wait for a free recognition worker before the job fails with PROVIDER_UNAVAILABLE. */
export const RECOGNITION_QUEUE_TIMEOUT_MS = 60 * 60_000;

/** Cloud recognizer: poll this often when no callback came, and give up after the timeout. */
export const DEFAULT_PROVIDER_POLL_MS = 60_000;
export const DEFAULT_PROVIDER_TIMEOUT_MS = 3 * 3600_000;
/** The cloud recognizer called back (through the ingress endpoint): its result can be fetched. */
export const providerCallbackSignal = defineSignal<[{ status: string }]>('providerCallback');

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
export const cancelUpdate = defineUpdate<CancelResult, []>('cancel');

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

export const DISCOVERY_WORKFLOW = 'discoveryWorkflow';
export type DiscoveryType = 'video' | 'language';
export interface DiscoveryWorkflowInput {
  type: DiscoveryType;
  discoveryId: string;
}
