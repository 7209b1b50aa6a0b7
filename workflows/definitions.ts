import { defineSearchAttributeKey, type SearchAttributePair } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { LiveCursor, LiveEnd } from '../core/live';
import type { ErrorObject } from '../core/errors';
import type { JobSpec } from '../core/job-spec';
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
  /** One backfill per index version: started once by the workers (worker/schedules.ts). */
  searchBackfill: (version: number) => `search-index-backfill-v${version}`,
  /** A live job's follower of its stream (a child of the job's workflow, continued as new as it goes). */
  liveStream: (jobId: string) => `live-${jobId}`,
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

/**
 * The retry policy of a job's activities. Its delays apply to attempts that were lost, not refused: a worker
 * or recognizer that died (heartbeat timeout), a result Temporal could not take while its database restarted,
 * an error outside the catalogue. Those are retried at once, after 1 s, 2 s, 4 s …; waiting 5 s, 10 s and
 * 20 s for them left a job idle 72 s in the scale test after a PostgreSQL restart. An error of the catalogue
 * that the source, the provider or storage answered keeps DEFAULT_RETRY's waits: the failure carries its own
 * delay (activities/failures.ts, retryDelayMs).
 */
export const LOST_ATTEMPT_RETRY: RetrySettings = { ...DEFAULT_RETRY, initialIntervalMs: 1_000 };

/** The settings as the retry policy of an activity proxy. */
export function retryPolicy(s: RetrySettings) {
  return {
    initialInterval: s.initialIntervalMs,
    backoffCoefficient: s.backoffCoefficient,
    maximumInterval: s.maximumIntervalMs,
    maximumAttempts: s.maximumAttempts,
  };
}

/** How long Temporal waits after attempt `attempt` failed with a retryable error of the catalogue. */
export function retryDelayMs(attempt: number, retryAfterSeconds?: number): number {
  if (retryAfterSeconds !== undefined) return retryAfterSeconds * 1000;
  return Math.min(DEFAULT_RETRY.initialIntervalMs * DEFAULT_RETRY.backoffCoefficient ** (attempt - 1), DEFAULT_RETRY.maximumIntervalMs);
}

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
/**
 * How long an activity that heartbeats (every 2 s: activities/heartbeat.ts, recognizer/worker.py) may go
 * silent before Temporal takes its process for dead and retries it elsewhere. The SDKs pass a beat on at most
 * every 0.8 × this, so it cannot be much shorter. 10 s, not 20: a killed recognizer's piece is retried 10 s
 * sooner, which kept the scale test's worst recovery (a recognizer killed just before a PostgreSQL restart)
 * clear of its 60 s bound.
 */
export const HEARTBEAT_TIMEOUT = '10 seconds';
/** How long a piece may wait for a free recognition worker before the job fails with PROVIDER_UNAVAILABLE. */
export const RECOGNITION_QUEUE_TIMEOUT_MS = 60 * 60_000;
/** How long chapters wait for an embedding worker (the embedding queue's schedule-to-start timeout): as long as recognition. */
export const EMBEDDING_QUEUE_TIMEOUT_MS = RECOGNITION_QUEUE_TIMEOUT_MS;
/** How long a summary waits for a summary worker: as long as recognition. */
export const SUMMARY_QUEUE_TIMEOUT_MS = RECOGNITION_QUEUE_TIMEOUT_MS;

/** Cloud recognizer: poll this often when no callback came, and give up after the timeout. */
export const DEFAULT_PROVIDER_POLL_MS = 60_000;
export const DEFAULT_PROVIDER_TIMEOUT_MS = 3 * 3600_000;
/** The cloud recognizer called back (through the ingress endpoint): its result can be fetched. */
export const providerCallbackSignal = defineSignal<[{ status: string }]>('providerCallback');

export interface BatchWorkflowInput {
  batchId: string;
  /** Children that need work (reused items are already succeeded). */
  jobIds: string[];
  /** What each of them is, for its workflow's summary and search attributes (absent in batches started before). */
  jobs?: JobFacts[];
}

export const BATCH_WORKFLOW = 'batchWorkflow';

export interface CancelResult {
  cancelled: boolean;
}

export const JOB_WORKFLOW = 'jobWorkflow';

/** The stages of an active job, in the order a job can pass them (the `JobStage` enum of prisma/schema.prisma). */
export const JOB_STAGES = ['resolve', 'captions', 'acquire_audio', 'submit_asr', 'wait_asr', 'finalize'] as const;
export type JobStage = (typeof JOB_STAGES)[number];

/** What the job workflow needs to run a job (startJob's answer): small, no transcript content. */
export interface JobPlan {
  jobId: string;
  workspaceId: string;
  platform: string;
  mediaId: string;
  sourceUrl: string | null;
  canonicalUrl: string | null;
  /** Which recognizer this worker uses for AI transcription: local pieces, or the cloud provider with callbacks. */
  recognizer: 'local' | 'cloud';
  /** Task queue of the recognition workers (recognizePiece); absent = the job's own queue (the workflow tests' mocks). */
  recognitionTaskQueue?: string;
  /** Task queue of the embedding workers (writeTranscriptChapters); absent = the job's own queue. */
  embeddingTaskQueue?: string;
  /** Task queue of the summary workers (writeTranscriptSummary); absent = the job's own queue. */
  summaryTaskQueue?: string;
  /**
   * The job's options as accepted (jobs.spec), whole: what every stage and the recognizer read
   * (recognizer/job_spec.py is generated from its schema).
   */
  spec: JobSpec;
  holdId: string | null;
  status: string;
  /** The stage the job's row is in (startJob writes the first one). */
  stage: JobStage | null;
}

/**
 * The plan as jobs started before the spec wrote it into their histories (startJob's answer is recorded): the
 * options as fields of their own, the recognition ones absent before they existed. Read through planWithSpec,
 * so a history of either shape replays to the same commands.
 */
export interface PlanBeforeSpec extends Omit<JobPlan, 'spec'> {
  mode: JobSpec['mode'];
  captionLanguages: string[];
  captionPreference: JobSpec['caption_preference'];
  language: string | null;
  profile?: JobSpec['profile'];
  vocabulary?: string[];
  speakerLabels?: boolean;
  speakersExpected?: number | null;
  wordTiming?: boolean;
  /** Whether the job had a text to align (its length was not in the plan). */
  alignText?: boolean;
}

/**
 * The plan with its spec, whichever shape startJob answered in. A plan from before has no text length: a job
 * with a text to align gets 0 there, which no request can give (the text is never empty).
 */
export function planWithSpec(plan: JobPlan | PlanBeforeSpec): JobPlan {
  if ('spec' in plan) return plan;
  const {
    mode,
    captionLanguages,
    captionPreference,
    language,
    profile,
    vocabulary,
    speakerLabels,
    speakersExpected,
    wordTiming,
    alignText,
    ...rest
  } = plan;
  return {
    ...rest,
    spec: {
      mode,
      language,
      caption_preference: captionPreference,
      caption_languages: captionLanguages,
      profile: profile ?? 'standard',
      vocabulary: vocabulary ?? [],
      speaker_labels: speakerLabels ?? false,
      speakers_expected: speakersExpected ?? null,
      word_timing: wordTiming ?? false,
      align_text_chars: alignText ? 0 : null,
      chapters: false,
      filter_profanity: false,
      disfluencies: true,
      redact_pii: false,
      redact_pii_types: [],
      redacted_audio: false,
      translate_to: null,
      summarize: false,
      max_duration_s: null,
    },
  };
}

/** A job's final status, and the id of the webhook event the change produced (null when none). */
export type JobOutcome = { status: 'succeeded' | 'failed' | 'cancelled'; eventId?: string | null };
/** Failure type of the job's first step when its row never appeared (the accepting transaction rolled back). */
export const JOB_NOT_COMMITTED = 'JOB_NOT_COMMITTED';
/** Update: the workflow alone decides whether a cancel is still allowed. */
export const cancelUpdate = defineUpdate<CancelResult, []>('cancel');
/**
 * Signal: a cancel the API could not have decided while it waited (no worker
 * ran the workflow in time). Written to the workflow's history, so it survives
 * a server restart, and decided by the same rule as the update as soon as a
 * worker runs the workflow again: the job is cancelled unless by then a cancel
 * would be refused (then the job finishes as it would have).
 */
export const cancelRequestSignal = defineSignal<[]>('cancelRequest');

/** A live job's follower: stop fetching, make what waits the last piece, and end (a cancel of the live job). */
export const stopLiveSignal = defineSignal<[]>('stopLive');

/** One recognised piece of a live stream: where it is in the job's media time and its raw result. */
export interface LivePieceDone {
  startMs: number;
  endMs: number;
  resultKey: string;
}

/** The follower's state, handed from run to run (continue-as-new). */
export interface LiveStreamInput {
  plan: JobPlan;
  cursor: LiveCursor;
  pieces: LivePieceDone[];
  /** A stop asked before this run (signals are not carried over by continue-as-new). */
  stop: boolean;
  /** Pieces a run follows before it continues as new (default 100: about ten minutes of a stream). */
  piecesPerRun?: number;
}

export interface LiveStreamOutcome {
  pieces: LivePieceDone[];
  ended: LiveEnd;
  /** Media the playlist slid past before it was fetched. */
  missedMs: number;
}

export const TRANSCRIPT_PURGE_WORKFLOW = 'purgeTranscriptWorkflow';
export const RETENTION_SCHEDULE_ID = 'transcript-retention';
export const RETENTION_WORKFLOW = 'retentionSweepWorkflow';
export const MONTHLY_GRANTS_SCHEDULE_ID = 'billing-monthly-grants';
export const MONTHLY_GRANTS_WORKFLOW = 'monthlyGrantsWorkflow';

export const SEARCH_BACKFILL_WORKFLOW = 'searchIndexBackfillWorkflow';
export interface SearchBackfillInput {
  /** The index version it writes (domain/search/index.ts SEARCH_INDEX_VERSION). */
  version: number;
  /** Where it goes on from: the last transcript id done (null at the start). */
  afterId: string | null;
  /** Transcripts indexed by the runs before this one. */
  indexed: number;
}

export const SEARCH_EMBEDDING_WORKFLOW = 'searchEmbeddingFollowerWorkflow';
/** The one embedding follower of a namespace: it runs for as long as the service does (continued as new). */
export const SEARCH_EMBEDDING_WORKFLOW_ID = 'search-embedding-follower';
/** Moments embedded per step: about a second of the engine's work, and one short transaction. */
export const EMBEDDING_BATCH = 32;
export interface SearchEmbeddingInput {
  /** Where the embedding workers take their activities (EMBEDDING_TASK_QUEUE). */
  embeddingTaskQueue: string;
  /** How long it waits when nothing is left to embed, before it looks again. */
  idleSeconds: number;
  /** Moments embedded by the runs before this one. */
  embedded: number;
}

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

// ------------------------------------------------------------ what operators see
// (README, "Operating it: the Temporal UI runbook")

/**
 * Typed search attributes of the job, batch, discovery and webhook workflows.
 * Every server the service runs on must have them registered (stack/temporal.ts
 * passes them to the dev server, docker-compose.yml's temporal-setup creates
 * them; other clusters: the runbook), or starts and upserts are refused.
 */
export const searchAttributes = {
  /** Every job, batch, discovery and webhook delivery workflow: the workspace it works for. */
  workspaceId: defineSearchAttributeKey('WorkspaceId', 'KEYWORD'),
  /** Job workflows, and the webhook deliveries of a job's event. */
  jobId: defineSearchAttributeKey('JobId', 'KEYWORD'),
  /** The batch workflow, its child jobs, and the deliveries of their events and of batch.completed. */
  batchId: defineSearchAttributeKey('BatchId', 'KEYWORD'),
  /** Jobs and discoveries: videosite, shortvideo, photosocial, upload, direct. */
  platform: defineSearchAttributeKey('Platform', 'KEYWORD'),
  /** Jobs (the platform's video id; a share link's `share:…` until resolved) and language discoveries (the video). */
  mediaId: defineSearchAttributeKey('MediaId', 'KEYWORD'),
  /**
   * Jobs: captions_only, auto, transcribe. Discoveries: their kind (videosite_search …, language_discovery).
   * Not `Mode`: MODE is a keyword of the SQL visibility's query parser, which refuses `Mode = "auto"` unquoted.
   */
  jobMode: defineSearchAttributeKey('JobMode', 'KEYWORD'),
  /** Jobs and discoveries: queued, processing, awaiting_provider, succeeded, failed, cancelled. Batches: processing, completed. */
  jobStatus: defineSearchAttributeKey('JobStatus', 'KEYWORD'),
  /** Jobs while active: resolve, captions, acquire_audio, submit_asr, wait_asr, finalize; unset once final. */
  jobStage: defineSearchAttributeKey('JobStage', 'KEYWORD'),
  /** Jobs and discoveries: the error being retried (with RetryAttempt), or the final error once failed. */
  errorCode: defineSearchAttributeKey('ErrorCode', 'KEYWORD'),
  /** Jobs and discoveries: the attempt of the current step that failed with a retryable error; unset when none. */
  retryAttempt: defineSearchAttributeKey('RetryAttempt', 'INT'),
  /** Webhook delivery workflows: the attempt being made or awaited (1 to 11). */
  deliveryAttempt: defineSearchAttributeKey('DeliveryAttempt', 'INT'),
};
export const SEARCH_ATTRIBUTE_KEYS = Object.values(searchAttributes);

/** What a job is, from its row: the static summary and the first search attributes of its workflow. */
export interface JobFacts {
  id: string;
  workspaceId: string;
  platform: string;
  mediaId: string;
  mode: string;
  batchId: string | null;
}

/** A job workflow's start options for the UI: "captions_only · videosite dQw4w9WgXcQ · workspace …". */
export function jobStartMetadata(job: JobFacts): { staticSummary: string; typedSearchAttributes: SearchAttributePair[] } {
  const sa = searchAttributes;
  return {
    staticSummary: `${job.mode} · ${job.platform} ${job.mediaId} · workspace ${job.workspaceId}${job.batchId ? ` · batch ${job.batchId}` : ''}`,
    typedSearchAttributes: [
      { key: sa.workspaceId, value: job.workspaceId },
      { key: sa.jobId, value: job.id },
      { key: sa.platform, value: job.platform },
      { key: sa.mediaId, value: job.mediaId },
      { key: sa.jobMode, value: job.mode },
      { key: sa.jobStatus, value: 'queued' },
      ...(job.batchId ? [{ key: sa.batchId, value: job.batchId }] : []),
    ],
  };
}

/** A batch workflow's start options for the UI: "batch · 3 job(s) to run · workspace …". */
export function batchStartMetadata(b: { batchId: string; workspaceId: string; jobs: number }): {
  staticSummary: string;
  typedSearchAttributes: SearchAttributePair[];
} {
  return {
    staticSummary: `batch · ${b.jobs} job(s) to run · workspace ${b.workspaceId}`,
    typedSearchAttributes: [
      { key: searchAttributes.workspaceId, value: b.workspaceId },
      { key: searchAttributes.batchId, value: b.batchId },
      { key: searchAttributes.jobStatus, value: 'processing' },
    ],
  };
}

/** What a discovery is: the kind and what it lists ("videosite_channel_videos · @handle · workspace …"). */
export interface DiscoveryFacts {
  id: string;
  workspaceId: string;
  /** A video discovery's kind, or language_discovery. */
  kind: string;
  platform: string;
  /** The channel, playlist, user or query a video discovery lists; the video of a language discovery. */
  target: string;
  mediaId?: string;
}

export function discoveryStartMetadata(d: DiscoveryFacts): { staticSummary: string; typedSearchAttributes: SearchAttributePair[] } {
  const sa = searchAttributes;
  const target = d.target.length > 60 ? `${d.target.slice(0, 59)}…` : d.target;
  return {
    staticSummary: `${d.kind} · ${target} · workspace ${d.workspaceId}`,
    typedSearchAttributes: [
      { key: sa.workspaceId, value: d.workspaceId },
      { key: sa.platform, value: d.platform },
      { key: sa.jobMode, value: d.kind },
      { key: sa.jobStatus, value: 'queued' },
      ...(d.mediaId ? [{ key: sa.mediaId, value: d.mediaId }] : []),
    ],
  };
}

/** Whose event a webhook delivery carries, for its summary and search attributes. */
export interface WebhookFacts {
  workspaceId: string | null;
  /** job.succeeded, job.failed, batch.completed, job.live_started. */
  type: string;
  jobId: string | null;
  batchId: string | null;
}

/** A webhook delivery workflow's start options for the UI: "webhook job.succeeded · job … · workspace …". */
export function webhookStartMetadata(
  w: WebhookFacts,
  opts: { startAttempt?: number; resend?: boolean } = {},
): { staticSummary: string; typedSearchAttributes: SearchAttributePair[] } {
  const sa = searchAttributes;
  const subject = w.jobId ? `job ${w.jobId}` : `batch ${w.batchId}`;
  return {
    staticSummary: `webhook ${w.type}${opts.resend ? ' (resend)' : ''} · ${subject}${w.workspaceId ? ` · workspace ${w.workspaceId}` : ''}`,
    typedSearchAttributes: [
      ...(w.workspaceId ? [{ key: sa.workspaceId, value: w.workspaceId }] : []),
      ...(w.jobId ? [{ key: sa.jobId, value: w.jobId }] : []),
      ...(w.batchId ? [{ key: sa.batchId, value: w.batchId }] : []),
      { key: sa.deliveryAttempt, value: opts.startAttempt ?? 1 },
    ],
  };
}

export type WorkStatus = 'queued' | 'processing' | 'awaiting_provider' | 'succeeded' | 'failed' | 'cancelled';

/** The answer of jobViewQuery: where the job stands, as its workflow sees it. */
export interface JobWorkflowView {
  jobId: string;
  status: WorkStatus;
  /** The stage while active (resolve, captions, acquire_audio, submit_asr, wait_asr, finalize); null once final. */
  stage: string | null;
  /** The attempt of the current step that failed with a retryable error, while Temporal waits to retry it; 0 when none. */
  attempt: number;
  /** That attempt's error; null when none. */
  lastError: ErrorObject | null;
  /** When the next attempt starts (ISO 8601); null when none is awaited. */
  nextAttemptAt: string | null;
  /** The final error once failed. */
  error: ErrorObject | null;
  /** Why a cancel would be refused now (stage=submit_asr, stage=finalize, status=final); null while it is accepted. */
  cancelRefusal: string | null;
  /** What the workflow is doing or waiting for: the same text as its current details in the UI. */
  details: string;
}

/** Query on the job workflow: `temporal workflow query --workflow-id job-<id> --type jobView`. */
export const jobViewQuery = defineQuery<JobWorkflowView>('jobView');

/** Sent by an activity that failed with a retryable error which Temporal will retry (activities/failures.ts). */
export interface RetryNotice {
  activity: string;
  /** The attempt that failed (1 = the first). */
  attempt: number;
  error: ErrorObject;
}
export const retryScheduledSignal = defineSignal<[RetryNotice]>('retryScheduled');
