import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  TimeoutFailure,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { JobOutcome, JobPlan } from '../activities/job-state';
import {
  cancelUpdate,
  DEFAULT_PROVIDER_POLL_MS,
  DEFAULT_PROVIDER_TIMEOUT_MS,
  DEFAULT_RETRY,
  JOB_NOT_COMMITTED,
  providerCallbackSignal,
  RECOGNITION_QUEUE_TIMEOUT_MS,
  type JobWorkflowInput,
} from './definitions';
import { errorFromFailure, failureCode } from './failures';
import { deliverEvent } from './webhook';

/** auto mode falls back to AI transcription when the video has no usable captions. */
const CAPTIONS_MISSING = new Set(['NO_CAPTIONS', 'LANGUAGE_UNAVAILABLE']);

/**
 * One workflow per job. It decides the order of the steps; activities do the
 * work and are the only writers of the job's row. Retryable errors are retried
 * by Temporal with growing delays (DEFAULT_RETRY); the job shows the attempt
 * meanwhile. Credits: held by the API at acceptance, charged or released here
 * exactly once (the settling activities are idempotent).
 */
export async function jobWorkflow(input: JobWorkflowInput): Promise<JobOutcome> {
  const { jobId } = input;
  // State changes: short database writes, run as local activities (inside the
  // workflow task, no round trips through the server). A database outage is
  // waited out, however long: giving up would strand the job with its hold.
  const state = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '100 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' }, // no maximumAttempts: unlimited
  });
  // Retryable source, provider and storage errors.
  const retry = {
    initialInterval: DEFAULT_RETRY.initialIntervalMs,
    backoffCoefficient: DEFAULT_RETRY.backoffCoefficient,
    maximumInterval: DEFAULT_RETRY.maximumIntervalMs,
    maximumAttempts: DEFAULT_RETRY.maximumAttempts,
  };
  // Media work: fetching and converting long files, stitching pieces. Not
  // eagerly dispatched to this worker: heavy work spreads over all workers.
  // Heartbeats (activities/heartbeat.ts) find a killed worker in 20 s.
  const media = proxyActivities<Activities>({
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: '20 seconds',
    allowEagerDispatch: false,
    retry,
  });
  // Source work: short network calls (each request has a 15 s budget), eagerly
  // dispatched to this worker where the server allows it
  // (stack/temporal-dynamic-config.yaml): no extra dispatch round trip. A
  // killed worker is found by the heartbeat timeout in 10 s.
  const source = proxyActivities<Activities>({ startToCloseTimeout: '60 seconds', heartbeatTimeout: '10 seconds', retry });
  // Speech recognition: the Python recognition workers (recognizer/) on the
  // plan's recognition queue, one activity per piece, called by name. A piece
  // no recognition worker takes within the queue timeout fails the job with
  // PROVIDER_UNAVAILABLE rather than waiting for ever.
  const recognition = (plan: JobPlan) =>
    proxyActivities<Activities>({
      taskQueue: plan.recognitionTaskQueue,
      startToCloseTimeout: '30 minutes',
      scheduleToStartTimeout: RECOGNITION_QUEUE_TIMEOUT_MS,
      heartbeatTimeout: '20 seconds',
      retry,
    });

  let finished = false;
  let cancelRequested = false;
  // Past these points a cancel is refused: audio went to a recognizer, or the result is being committed.
  let refusal: string | null = null;
  const pipeline = new CancellationScope();

  setHandler(
    cancelUpdate,
    async () => {
      cancelRequested = true;
      pipeline.cancel();
      await condition(() => finished);
      return { cancelled: true };
    },
    {
      validator: () => {
        const why = finished ? 'status=final' : refusal;
        if (why) {
          throw ApplicationFailure.create({
            type: 'CANCELLATION_NOT_ALLOWED',
            nonRetryable: true,
            message: 'The job can no longer be cancelled.',
            details: [why],
          });
        }
      },
    },
  );

  let providerCalledBack = false;
  setHandler(providerCallbackSignal, () => {
    providerCalledBack = true;
  });

  /** AI transcription: measure, price, then recognise (pieces in parallel, or the cloud provider). */
  async function transcribe(plan: JobPlan): Promise<{ transcriptId: string; charge: number; billingKind: 'ai_transcription' }> {
    await state.setStage(jobId, 'acquire_audio');
    const audio = await media.acquireAudio(plan);
    const { cost } = await state.reserveTranscriptionCredits(plan, audio.durationMs);
    // The audio goes to a recognizer next: from now on the job finishes.
    refusal = 'stage=submit_asr';
    await state.markAsrStarted(jobId);
    let transcriptId: string;
    if (plan.recognizer === 'cloud') {
      const providerJobId = await media.submitToProvider(plan, audio.audioKey);
      // Wait for the callback; poll now and then in case it is lost, give up after the deadline.
      const deadline = Date.now() + DEFAULT_PROVIDER_TIMEOUT_MS;
      for (;;) {
        await condition(() => providerCalledBack, DEFAULT_PROVIDER_POLL_MS);
        providerCalledBack = false;
        const r = await media.fetchProviderResult(plan, providerJobId, audio.durationMs);
        if (r !== 'pending') {
          transcriptId = r.transcriptId;
          break;
        }
        if (Date.now() > deadline) {
          throw ApplicationFailure.create({
            type: 'PROVIDER_UNAVAILABLE',
            nonRetryable: true,
            message: 'The recognition provider did not finish in time.',
            details: ['provider_timeout'],
          });
        }
      }
    } else {
      const { pieces, keys } = await media.cutAudio(plan, audio.audioKey, audio.durationMs);
      await state.setStage(jobId, 'wait_asr');
      const recognize = recognition(plan);
      const results = await Promise.all(keys.map((key, i) => recognize.recognizePiece(plan, key, i))).catch((err: unknown) => {
        throw noRecognizerInTime(err) ?? err;
      });
      ({ transcriptId } = await media.storeRecognition(plan, results, pieces, audio.durationMs));
    }
    return { transcriptId, charge: cost, billingKind: 'ai_transcription' };
  }

  let plan;
  try {
    plan = await state.startJob(jobId);
  } catch (err) {
    // Only a job whose accepting transaction never committed ends quietly:
    // nothing was held, nothing to do. Everything else is retried above.
    if (failureCode(err) !== JOB_NOT_COMMITTED) throw err;
    finished = true;
    return { status: 'failed' };
  }
  if (!plan || plan.status !== 'processing') {
    finished = true;
    return { status: (plan?.status as JobOutcome['status']) ?? 'failed' };
  }

  let outcome: JobOutcome;
  try {
    outcome = await pipeline.run(async () => {
      // Only share links need the resolve step's network call.
      const { mediaId } = plan.mediaId.startsWith('share:') ? await source.resolveSource(plan) : { mediaId: plan.mediaId };
      let result: { transcriptId: string; charge: number; billingKind: 'captions' | 'ai_transcription' };
      if (plan.mode === 'transcribe') {
        result = await transcribe(plan);
      } else {
        await state.setStage(jobId, 'captions');
        try {
          const { transcriptId, charge } = await source.fetchCaptions(plan, mediaId);
          result = { transcriptId, charge, billingKind: 'captions' };
        } catch (err) {
          if (plan.mode !== 'auto' || !CAPTIONS_MISSING.has(failureCode(err) ?? '')) throw err;
          result = await transcribe(plan);
        }
      }
      refusal = 'stage=finalize';
      await state.setStage(jobId, 'finalize');
      return CancellationScope.nonCancellable(() => state.completeJob(jobId, result));
    });
  } catch (err) {
    outcome = await CancellationScope.nonCancellable(() =>
      cancelRequested && isCancellation(err) ? state.cancelJob(jobId) : state.failJob(jobId, errorFromFailure(err)),
    );
  }
  finished = true;
  if (outcome.eventId) await deliverEvent(outcome.eventId);
  return outcome;
}

/** A piece that waited out the recognition queue's schedule-to-start timeout: no recognition worker is serving the queue. */
function noRecognizerInTime(err: unknown): ApplicationFailure | null {
  if (!(err instanceof ActivityFailure) || !(err.cause instanceof TimeoutFailure) || err.cause.timeoutType !== 'SCHEDULE_TO_START')
    return null;
  return ApplicationFailure.create({
    type: 'PROVIDER_UNAVAILABLE',
    nonRetryable: true,
    message: 'No speech recognition worker took the audio in time.',
    details: ['recognizer_queue_timeout'],
  });
}
