import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import type { Activities } from '../../activities';
import { toTemporalFailure } from '../../activities/failures';
import { firstStage } from '../../domain/jobs/state';
import { JOB_SPEC_DEFAULTS, JobSpecSchema, type JobSpec } from '../../domain/schemas/jobs';
import type { JobPlan } from '../../workflows/definitions';
import { ServiceError, type ErrorCode } from '../../core/errors';
import { workflowIds } from '../../workflows/definitions';
import { jobWorkflow } from '../../workflows/job';
import { mockActivities, type TimeSkipping } from './time-skipping';

// jobWorkflow in the workflow tier: a plan, mocks of every activity it uses,
// and ways to run it (to the end, or steered through its handle).

type JobActivity =
  | 'startJob'
  | 'setStage'
  | 'resolveSource'
  | 'findLiveStream'
  | 'fetchCaptions'
  | 'acquireAudio'
  | 'reserveTranscriptionCredits'
  | 'markAsrStarted'
  | 'cutLeadingPiece'
  | 'cutAudio'
  | 'recognizePiece'
  | 'publishPieceSegments'
  | 'storeRecognition'
  | 'submitToProvider'
  | 'fetchProviderResult'
  | 'indexTranscriptForSearch'
  | 'completeJob'
  | 'failJob'
  | 'cancelJob'
  | 'deliverWebhookAttempt';

/** A plan for the workflow tests: the plan's own fields and the spec's (mode, word_timing, …) given side by side. */
export function planFor(over: Partial<Omit<JobPlan, 'spec'>> & Partial<JobSpec> = {}): JobPlan {
  const specFields = Object.keys(JobSpecSchema.shape);
  const specOver = Object.fromEntries(Object.entries(over).filter(([k]) => specFields.includes(k)));
  const planOver = Object.fromEntries(Object.entries(over).filter(([k]) => !specFields.includes(k)));
  const spec: JobSpec = { ...JOB_SPEC_DEFAULTS, mode: 'captions_only', caption_languages: ['en'], ...specOver };
  const mediaId = over.mediaId ?? 'rCAS2eD-mcw';
  return {
    stage: firstStage({ mode: spec.mode, mediaId }),
    jobId: randomUUID(),
    workspaceId: 'ws-1',
    platform: 'videosite',
    mediaId: 'rCAS2eD-mcw',
    sourceUrl: 'https://www.youtube.com/watch?v=rCAS2eD-mcw',
    canonicalUrl: null,
    recognizer: 'local',
    holdId: 'hold-1',
    status: 'processing',
    ...planOver,
    spec,
  };
}

/** Every activity the job workflow uses, each succeeding unless overridden (42 s of audio, one piece). */
export function jobActivities(plan: JobPlan, over: Partial<Pick<Activities, JobActivity>> = {}) {
  return mockActivities<JobActivity>({
    startJob: async () => plan,
    setStage: async () => undefined,
    resolveSource: async () => ({ mediaId: plan.mediaId }),
    // Not on air: a videosite transcription goes the way of a recording.
    findLiveStream: async () => null,
    fetchCaptions: async () => ({ transcriptId: 'tr-captions', charge: 1 }),
    acquireAudio: async () => ({ audioKey: `work/${plan.jobId}/audio.wav`, durationMs: 42_000 }),
    reserveTranscriptionCredits: async () => ({ cost: 2 }),
    markAsrStarted: async () => undefined,
    cutLeadingPiece: async () => ({ durationMs: 42_000, lead: null }),
    cutAudio: async () => ({ pieces: [{ startMs: 0, endMs: 42_000 }], keys: ['piece-0'], firstPieceSha256: '' }),
    recognizePiece: async () => 'result-0',
    publishPieceSegments: async () => ({ published: 1 }),
    storeRecognition: async () => ({ transcriptId: 'tr-asr' }),
    submitToProvider: async () => 'provider-job-1',
    fetchProviderResult: async () => ({ transcriptId: 'tr-cloud' }),
    indexTranscriptForSearch: async () => 1,
    completeJob: async () => ({ status: 'succeeded', eventId: null }),
    failJob: async () => ({ status: 'failed', eventId: null }),
    cancelJob: async () => ({ status: 'cancelled', eventId: null }),
    deliverWebhookAttempt: async () => 'delivered',
    ...over,
  });
}
export type JobMocks = ReturnType<typeof jobActivities>;

/** What an activity throws for a catalogue error (the production mapping, activities/failures.ts). */
export const failure = (code: ErrorCode, detail = 'test') => toTemporalFailure(new ServiceError(code, detail));

function startOptions(plan: JobPlan, taskQueue: string) {
  return { taskQueue, workflowId: workflowIds.job(plan.jobId), args: [{ jobId: plan.jobId }] as [{ jobId: string }] };
}

/** Runs the job's workflow to its end (timers skipped meanwhile). */
export async function runJob(ts: TimeSkipping, plan: JobPlan, acts: JobMocks) {
  const { taskQueue } = ts.ids();
  return ts.withWorker(taskQueue, acts, () => ts.env.client.workflow.execute(jobWorkflow, startOptions(plan, taskQueue)));
}

/** Starts the job, runs `steer` against its handle while a worker serves it, then returns the workflow's result. */
export async function steerJob(
  ts: TimeSkipping,
  plan: JobPlan,
  acts: JobMocks,
  steer: (handle: WorkflowHandleWithFirstExecutionRunId<typeof jobWorkflow>) => Promise<void>,
  opts: { workflowTaskTimeout?: Duration } = {},
) {
  const { taskQueue } = ts.ids();
  return ts.withWorker(taskQueue, acts, async () => {
    const handle = await ts.env.client.workflow.start(jobWorkflow, { ...startOptions(plan, taskQueue), ...opts });
    await steer(handle);
    return handle.result();
  });
}
