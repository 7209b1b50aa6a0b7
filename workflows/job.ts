import {
  ApplicationFailure, CancellationScope, condition, defineUpdate, isCancellation, proxyActivities, setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { JobOutcome } from '../activities/jobState';
import { CANCEL_UPDATE, type CancelResult, type JobWorkflowInput } from './definitions';
import { errorFromFailure } from './failures';
import { startWebhookDelivery } from './webhook';

export const cancelUpdate = defineUpdate<CancelResult, []>(CANCEL_UPDATE);

/**
 * One workflow per job. It decides the order of the steps; activities do the
 * work and are the only writers of the job's row. Retryable errors are retried
 * by Temporal with growing delays (input.retry); the job shows the attempt
 * meanwhile. Credits: held by the API at acceptance, charged or released here
 * exactly once (the settling activities are idempotent).
 */
export async function jobWorkflow(input: JobWorkflowInput): Promise<JobOutcome> {
  const { jobId } = input;
  // State changes: quick retries on transient database trouble.
  const state = proxyActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '100 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds', maximumAttempts: 12 },
  });
  // Source work: the retry policy the job was submitted with.
  const source = proxyActivities<Activities>({
    startToCloseTimeout: '3 minutes',
    retry: {
      initialInterval: input.retry.initialIntervalMs,
      backoffCoefficient: input.retry.backoffCoefficient,
      maximumInterval: input.retry.maximumIntervalMs,
      maximumAttempts: input.retry.maximumAttempts,
    },
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
          throw ApplicationFailure.create({ type: 'CANCELLATION_NOT_ALLOWED', nonRetryable: true, message: 'The job can no longer be cancelled.', details: [why] });
        }
      },
    },
  );

  let plan;
  try {
    plan = await state.startJob(jobId);
  } catch {
    // The accepting transaction never committed: nothing was held, nothing to do.
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
      const { mediaId } = await source.resolveSource(plan);
      await state.setStage(jobId, 'captions');
      const { transcriptId } = await source.fetchCaptions(plan, mediaId);
      refusal = 'stage=finalize';
      await state.setStage(jobId, 'finalize');
      return CancellationScope.nonCancellable(() => state.completeJob(jobId, { transcriptId, charge: 1, billingKind: 'captions' }));
    });
  } catch (err) {
    outcome = await CancellationScope.nonCancellable(() =>
      cancelRequested && isCancellation(err) ? state.cancelJob(jobId) : state.failJob(jobId, errorFromFailure(err)),
    );
  }
  finished = true;
  if (outcome.eventId) await startWebhookDelivery(outcome.eventId, input.webhookDelaysMs);
  return outcome;
}
