import { WorkflowNotFoundError, WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { cancelRequestSignal, cancelUpdate } from '../../workflows/definitions';
import type { Principal } from '../accounts/principal';
import { isErrorCode, ServiceError, type ErrorObject } from '../../core/errors';
import { requestHash, type IdempotencyScope } from '../idempotency';
import { getJob } from './read';
import { startBatchWorkflow, startJobWorkflow } from '../workflow-starts';
import { acceptJob, type JobServiceDeps, type JobSubmission, type SubmitResult } from './submit';
import { specOfJob } from './spec';
import { isFinal, type JobView } from './view';

/**
 * What a cancel came to: `decided` when the job's workflow answered (the job is
 * cancelled); `pending` when no worker ran the workflow within the wait. Then
 * the cancel is recorded in the workflow's history (cancelRequestSignal) and
 * decided as soon as a worker runs it, by the same rule: the job is cancelled
 * unless by then a cancel would be refused.
 */
export interface CancelOutcome {
  job: JobView;
  decision: 'decided' | 'pending';
}

/**
 * POST /v1/jobs/{id}/cancel. The job's workflow decides through an update, so
 * the API cannot race it: the update is refused once AI transcription started
 * or the job is final, and otherwise returns after the hold was released.
 */
export async function cancelJob(deps: JobServiceDeps, principal: Principal, jobId: string): Promise<CancelOutcome> {
  const job = await deps.db.job.findFirst({ where: { id: jobId, workspaceId: principal.workspaceId } });
  if (!job) throw new ServiceError('NOT_FOUND', 'id', { message: 'No job with this id in this workspace.' });
  if (isFinal(job.status)) throw notAllowed(`status=${job.status}`, `The job is already ${job.status}.`);
  // The workflow is started after the accepting commit (a batch child's by its
  // parent): a job still queued may not have one yet. Start it here (a start the
  // API or the starter made first wins; Temporal rejects the second), or, for a
  // batch child, its batch, and try again shortly.
  for (let attempt = 0; ; attempt++) {
    try {
      // One update id per job: a repeated cancel (after a 503) joins the first one instead of queueing another.
      const handle = deps.temporal.workflow.getHandle(job.workflowId);
      await deps.temporal.withDeadline(Date.now() + deps.cancelWaitMs, () =>
        handle.executeUpdate(cancelUpdate, { updateId: `cancel-${jobId}` }),
      );
      break;
    } catch (err) {
      if (err instanceof WorkflowUpdateRPCTimeoutOrCancelledError || isDeadlineExceeded(err)) {
        // No worker ran the workflow in time. The update may still be applied later (the server keeps it), but only
        // in memory: the signal puts the request into the workflow's history, so it is decided whatever happens.
        await deps.temporal.workflow.getHandle(job.workflowId).signal(cancelRequestSignal);
        return { job: await getJob(deps.db, principal.workspaceId, jobId), decision: 'pending' };
      }
      if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure && isErrorCode(err.cause.type)) {
        const detail = (err.cause.details?.[0] as string | undefined) ?? 'stage';
        throw new ServiceError(err.cause.type, detail, { message: err.cause.message });
      }
      if (err instanceof WorkflowNotFoundError || (err as Error).name === 'WorkflowNotFoundError') {
        const now = await getJob(deps.db, principal.workspaceId, jobId);
        if (now.status === 'queued' && attempt < 50) {
          if (now.batch_id) await startBatchWorkflow(deps, deps.db, now.batch_id);
          else await startJobWorkflow(deps, job);
          if (now.batch_id) await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        throw notAllowed(`status=${now.status}`, `The job is already ${now.status}.`);
      }
      throw err;
    }
  }
  return { job: await getJob(deps.db, principal.workspaceId, jobId), decision: 'decided' };
}

/** gRPC DEADLINE_EXCEEDED (code 4) anywhere in the cause chain. */
function isDeadlineExceeded(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, i = 0; e && i < 6; e = e.cause as typeof e, i++)
    if (e.code === 4) return true;
  return false;
}

function notAllowed(detail: string, message: string) {
  return new ServiceError('CANCELLATION_NOT_ALLOWED', detail, { message });
}

/** POST /v1/jobs/{id}/retry: a new job with the same source and options, from a failure whose error was retryable. */
export async function retryJob(
  deps: JobServiceDeps,
  principal: Principal,
  jobId: string,
  body: { max_credits?: number },
  idempotency: IdempotencyScope,
): Promise<SubmitResult> {
  const job = await deps.db.job.findFirst({ where: { id: jobId, workspaceId: principal.workspaceId }, include: { alignText: true } });
  if (!job) throw new ServiceError('NOT_FOUND', 'id', { message: 'No job with this id in this workspace.' });
  const alignText = job.alignText?.text ?? null;
  const error = job.error as ErrorObject | null;
  if (job.status !== 'failed' || !error?.retryable) {
    throw new ServiceError('JOB_NOT_RETRYABLE', job.status === 'failed' ? `error.code=${error?.code}` : `status=${job.status}`, {
      message:
        job.status === 'failed'
          ? 'The failure was final; change the request instead.'
          : `Only failed jobs can be retried; this one is ${job.status}.`,
    });
  }
  // The job again as it was accepted: its spec verbatim, its text, its endpoint and metadata; only the cap may change.
  const again: JobSubmission = {
    source: job.uploadId ? { upload_id: job.uploadId } : { url: job.sourceUrl! },
    spec: specOfJob(job),
    alignText,
    maxCredits: body.max_credits ?? job.maxCredits,
    webhookEndpointId: job.webhookEndpointId,
    metadata: job.metadata as Record<string, string>,
  };
  return acceptJob(deps, principal, again, idempotency, { hash: requestHash(body), retryOfJobId: jobId });
}
