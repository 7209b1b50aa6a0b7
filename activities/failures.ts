import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ServiceError } from '../core/errors';
import { retryScheduledSignal } from '../workflows/definitions';
import { whileHeartbeating } from './heartbeat';

/**
 * The one mapping from the error catalogue to Temporal: a ServiceError becomes
 * an ApplicationFailure whose type is the code, non-retryable unless the
 * catalogue says the code is retryable. Anything else stays an ordinary error
 * (retried by the activity's policy, then reported as INTERNAL_ERROR).
 */
export function toTemporalFailure(err: unknown): unknown {
  if (err instanceof ServiceError) {
    return ApplicationFailure.create({
      type: err.code,
      message: err.message,
      nonRetryable: !err.retryable,
      details: [err.detail ?? null],
      ...(err.retryAfterSeconds ? { nextRetryDelay: `${err.retryAfterSeconds}s` } : {}),
    });
  }
  return err;
}

/** Runs an activity body (heartbeating while it works) and converts its failure once, at the boundary. */
export async function asActivity<T>(
  fn: () => Promise<T>,
  onRetryableFailure?: (err: ServiceError, attempt: number) => Promise<void>,
): Promise<T> {
  try {
    return await whileHeartbeating(fn);
  } catch (err) {
    if (err instanceof ServiceError && err.retryable && onRetryableFailure) {
      await onRetryableFailure(err, Context.current().info.attempt).catch(() => undefined);
    }
    throw toTemporalFailure(err);
  }
}

/**
 * Tells this activity's workflow that Temporal will retry it after a retryable
 * error, so the workflow shows the wait (its current details, the RetryAttempt
 * and ErrorCode search attributes, the jobView query). Nothing on the last
 * attempt when the server tells the activity its retry policy (the workflow
 * ignores a notice of its last attempt anyway), and nothing where no client is
 * at hand (MockActivityEnvironment).
 */
export async function announceRetry(err: ServiceError): Promise<void> {
  const { info, client } = Context.current();
  const max = info.retryPolicy?.maximumAttempts;
  if ((max && info.attempt >= max) || !info.workflowExecution) return;
  const { workflowId, runId } = info.workflowExecution;
  const notice = { activity: info.activityType, attempt: info.attempt, error: err.toObject() };
  // Bounded: the failure is reported to Temporal only after this.
  await client.withDeadline(Date.now() + 2_000, () => client.workflow.getHandle(workflowId, runId).signal(retryScheduledSignal, notice));
}
